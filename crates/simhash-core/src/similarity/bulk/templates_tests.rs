//! A run's templates (`templates.rs`): the join finds what every pair banded and framed finds,
//! a cloud of reposts and rows sharing a phrase are no template, foreign rows still meet the
//! template's rows, and a cancel in the templates' phase unwinds.

use std::collections::BTreeSet;

use super::templates::Mode;
use super::*;
use crate::decision::Rule;

/// Function names of 10 to 20 letters, from `seed` (splitmix64).
fn names(n: usize, seed: u64) -> Vec<String> {
    let mut rng = super::tests::Rng(seed);
    (0..n).map(|_| (0..10 + rng.below(11)).map(|_| (b'a' + rng.below(26) as u8) as char).collect()).collect()
}

fn row(name: &str) -> String {
    format!("For an explanation of the terms used in this section, see attributes(7). Interface Attribute Value {name}() Thread safety MT-Safe")
}

/// Issue 55's template: `n` rows, then for every tenth a full stop added, a sentence appended,
/// a line put before and the name's last letter changed; ids from 1.
fn template(n: usize) -> Vec<String> {
    let names = names(n, 55);
    let mut texts: Vec<String> = names.iter().map(|n| row(n)).collect();
    for n in names.iter().step_by(10) {
        let mut near = n.clone();
        near.pop();
        near.push('q');
        texts.push(format!("{}.", row(n)));
        texts.push(format!("{} See the notes at the end of this page.", row(n)));
        texts.push(format!("From the manual pages. {}", row(n)));
        texts.push(row(&near));
    }
    texts
}

struct Ran {
    pairs: BTreeSet<(i64, i64)>,
    templated: u64,
    candidates: u64,
}

fn config(mode: Mode, decide: Option<Rule>) -> Config {
    Config { theta: 0.5, version: Version::M2, threads: 2, spill_dir: None, decide, templates: mode }
}

fn run(texts: &[String], mode: Mode, decide: Option<Rule>) -> Ran {
    let mut e = BulkPairs::new(&config(mode, decide)).expect("a run");
    for (i, t) in texts.iter().enumerate() {
        e.push(i as i64 + 1, t, &mut |_| ());
    }
    let mut pairs = BTreeSet::new();
    while let Some(p) = e.next_pair(&mut |_| ()) {
        assert!(pairs.insert((p.id1, p.id2)), "a pair once");
    }
    let c = e.counters();
    Ran { pairs, templated: c.templated.load(Ordering::Relaxed), candidates: c.candidates.load(Ordering::Relaxed) }
}

#[test]
fn a_template_is_joined_as_its_pairs_are_banded() {
    let texts = template(400);
    let d = Some(Rule::LATEST);
    let (off, framed, joined) =
        (run(&texts, Mode::Off, d), run(&texts, Mode::Enumerated, d), run(&texts, Mode::Joined, d));
    assert_eq!(joined.pairs, framed.pairs);
    // 400 rows and 160 edits, of which the full stops have their row's shingles (a group).
    assert_eq!((framed.templated, joined.templated), (520, 520));
    assert!(joined.candidates * 20 < framed.candidates, "{} against {}", joined.candidates, framed.candidates);
    // Every repost is caught: a row, its full stop, its sentence and its line are the same passage.
    for r in 0..40i64 {
        let (row, edits) = (r * 10 + 1, 401 + 4 * r);
        for (a, b) in [(row, edits), (row, edits + 1), (row, edits + 2), (edits, edits + 1), (edits + 1, edits + 2)] {
            assert!(joined.pairs.contains(&(a, b)), "{} | {}", texts[a as usize - 1], texts[b as usize - 1]);
        }
    }
    // The frame makes another name another passage: off's pairs less the name edits'.
    assert!(framed.pairs.is_subset(&off.pairs));
    let named: BTreeSet<(i64, i64)> = off.pairs.difference(&framed.pairs).copied().collect();
    assert!(!named.is_empty());
    assert!(named.iter().all(|&(_, b)| b > 400 && (b - 401) % 4 == 3), "{named:?}");
    // Without the decision, 5.x's pairs: no template.
    let d1 = run(&texts, Mode::Joined, None);
    assert_eq!(d1.templated, 0);
    assert!(d1.pairs.len() > 70_000, "every pair of the frame at 0.5: {}", d1.pairs.len());
}

#[test]
fn a_cloud_of_reposts_and_rows_sharing_a_phrase_are_no_template() {
    // 300 reposts of one paragraph, each with an edit of its own: any two are the same passage,
    // though none shares another's edit.
    let base: Vec<char> = "新华社北京一月五日电　国务院总理今天在人民大会堂会见了来访的客人，双方就进一步发展两国在经济、贸易和科技等领域的合作交换了意见，客人表示希望两国关系在新的一年里取得更大的发展。".chars().collect();
    let cloud: Vec<String> = (0..300)
        .map(|i| {
            let at = 5 + (i * 37) % (base.len() - 10);
            let mut t = base.clone();
            match i % 3 {
                0 => t[at] = char::from_u32(0x4E00 + i as u32).expect("a character"),
                1 => drop(t.remove(at)),
                _ => t.splice(0..0, format!("（第{i}期）").chars()).for_each(drop),
            }
            t.into_iter().collect()
        })
        .collect();
    let d = Some(Rule::LATEST);
    let (off, joined) = (run(&cloud, Mode::Off, d), run(&cloud, Mode::Joined, d));
    assert_eq!(joined.templated, 0);
    assert_eq!(joined.pairs, off.pairs);
    assert!(off.pairs.len() > 35_000, "{}", off.pairs.len());
    // Texts of their own that all hold one sentence: their runs are no template.
    let words = ["经济", "发展", "会议", "报道", "北京", "市场", "改革", "农业", "科技", "教育", "文化", "体育"];
    let mut s = 7u64;
    let phrase: Vec<String> = (0..600)
        .map(|_| {
            let own: String = (0..40)
                .map(|_| {
                    s = super::sketch::mix(s.wrapping_add(1));
                    words[(s % words.len() as u64) as usize]
                })
                .collect();
            format!("新华社北京一月五日电　{own}")
        })
        .collect();
    let (off, joined) = (run(&phrase, Mode::Off, d), run(&phrase, Mode::Joined, d));
    assert_eq!(joined.templated, 0);
    assert_eq!(joined.pairs, off.pairs);
}

#[test]
fn foreign_rows_meet_a_templates_rows() {
    let texts = template(300);
    let foreign = row_keys(&format!("{}!", row(&names(300, 55)[7])), Version::M2, 0.5).expect("keys");
    let candidates = |mode: Mode| {
        let mut e = BulkPairs::new(&config(mode, Some(Rule::LATEST))).expect("a run");
        texts.iter().enumerate().for_each(|(i, t)| e.push(i as i64 + 1, t, &mut |_| ()));
        e.push_foreign(1000, &foreign).expect("a foreign row");
        let mut out = BTreeSet::new();
        while let Some(f) = e.next(&mut |_| ()) {
            if let Found::Foreign { local, .. } = f {
                out.insert(local);
            }
        }
        (out, e.counters().templated.load(Ordering::Relaxed))
    };
    let ((off, _), (joined, templated)) = (candidates(Mode::Off), candidates(Mode::Joined));
    assert!(templated > 0);
    assert_eq!(joined, off);
    assert!(joined.contains(&8), "its own row");
}

#[test]
fn a_cancel_in_the_templates_unwinds_and_drop_joins() {
    let texts = template(300);
    for n in [1, 3, 10, 40, 200] {
        super::tests::cancelled_at(n, &config(Mode::Joined, Some(Rule::LATEST)), texts.iter());
    }
}
