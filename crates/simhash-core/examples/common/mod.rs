//! What the examples share: this thread's CPU clock; `name=value` arguments; issue 55's table
//! of one template; and for the batch against corpus benchmarks their fingerprints, their
//! arguments, and the baseline every figure is divided by, a plain sequential pass over the
//! corpus.

// Each example uses a part of this module.
#![allow(dead_code)]

use std::hint::black_box;
use std::io::BufRead;
use std::time::Instant;

use simhash_core::fingerprints::pairs::{BatchTables, ChunkScratch};

/// A well-mixed 64-bit value of `i` and seed `s`: the benchmarks' fingerprints.
pub fn mix(i: u64, s: u64) -> u64 {
    (i ^ s).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// Batch rows `(id, fp)`: ids `0..n`.
pub fn batch(n: usize) -> Vec<(i64, u64)> {
    (0..n as u64).map(|i| (i as i64, mix(i, 1))).collect()
}

/// Corpus rows `(id, fp)`, fingerprints apart from the batch's (so pairs are rare, as
/// between unrelated documents).
pub fn corpus(n: usize) -> Vec<(i64, u64)> {
    (0..n as u64).map(|i| (i as i64, mix(i + (1 << 40), 1))).collect()
}

/// Positional argument `i` (1-based) as a number, `default` when absent.
pub fn arg(i: usize, default: usize) -> usize {
    std::env::args().nth(i).map_or(default, |a| a.replace('_', "").parse().expect("a row count"))
}

/// The argument `name=value` of `args`, parsed; `default` when absent or unparsable.
pub fn named<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter().find_map(|a| a.strip_prefix(&format!("{name}=")).and_then(|v| v.parse().ok())).unwrap_or(default)
}

/// Issue 55's template: a row of it with `name` in its slot and `word` where the frame says
/// "terms".
pub fn template_row(name: &str, word: &str) -> String {
    format!("For an explanation of the {word} used in this section, see attributes(7). Interface Attribute Value {name}() Thread safety MT-Safe")
}

/// The row of `template` (examples/template_pairs) with filler `name` and `word` where its frame has its first word.
pub fn template_text(template: &str, name: &str, word: &str) -> String {
    match template {
        "attributes" => template_row(name, word),
        "listing" => format!("Package: {name}. The {word} of this package are maintained by the Debian QA Group. Section: utils. Priority: optional. Architecture: amd64."),
        "cloud" => {
            // One news paragraph reposted, each copy with an edit of its own where `name` says.
            let text = "新华社北京一月五日电　国务院总理李鹏今天在人民大会堂会见了来访的客人，双方就进一步发展两国在经济、贸易和科技等领域的合作交换了意见。李鹏说，中国政府高度重视发展同各国的友好关系，愿意在平等互利的基础上扩大合作。客人表示，希望两国关系在新的一年里取得更大的发展。";
            let t: Vec<char> = text.chars().collect();
            let b = name.as_bytes();
            let at = (b[0] as usize * 31 + b[1] as usize * 7 + b[2] as usize) % t.len();
            let mut t: Vec<char> = match b[3] % 4 {
                0 => t.iter().enumerate().map(|(i, &c)| if i == at { '某' } else { c }).collect(),
                1 => t.iter().enumerate().filter(|&(i, _)| i != at).map(|(_, &c)| c).collect(),
                2 => format!("（{}报道）", &name[..6]).chars().chain(t.iter().copied()).collect(),
                _ => t.iter().copied().chain(format!("（记者{}）", &name[..4]).chars()).collect(),
            };
            if word != "terms" {
                t.retain(|&c| c != '，');
            }
            t.into_iter().collect()
        }
        _ => {
            let (city, company) = name.split_at(name.char_indices().nth(2).map_or(name.len(), |(i, _)| i));
            let w = if word == "terms" { "本公司" } else { "我公司" };
            format!("{w}地址位于{city}市，{company}有限公司主营电子产品的研发与销售，欢迎各界朋友来电咨询洽谈业务。")
        }
    }
}

/// `n` with one character changed at character `at` (a letter for Latin, 的 or 了 for CJK).
pub fn changed(n: &str, at: usize) -> String {
    n.chars()
        .enumerate()
        .map(|(i, c)| match (i == at, c.is_ascii()) {
            (false, _) => c,
            (true, true) => {
                if c == 'z' {
                    'a'
                } else {
                    (c as u8 + 1) as char
                }
            }
            (true, false) => {
                if c == '的' {
                    '了'
                } else {
                    '的'
                }
            }
        })
        .collect()
}

/// Issue 55's table of a template with edits (examples/template_pairs, template_bulk): `rows`
/// rows of `template` (`attributes`, `listing` or `cjk`: [`template_text`]), each another
/// filler, and for `variants` of them ten edits, as `(kind, the row it edits or itself, text)`.
pub fn template_table(template: &str, rows: usize, variants: usize, seed: u64) -> Vec<(&'static str, usize, String)> {
    let mut names_from = Names::new(seed);
    const HAN: &str =
        "北京上海广州深圳天津重庆杭州南京武汉成都西安长沙华为联想海尔格力美的小米中兴长城东方明珠恒通宏达";
    let han: Vec<char> = HAN.chars().collect();
    let names: Vec<String> = (0..rows)
        .map(|_| {
            let n = names_from.next_name();
            match template {
                "listing" => n[..n.len().min(4 + n.len() % 17)].to_string(),
                "cjk" => n.bytes().take(5).map(|b| han[b as usize % han.len()]).collect(),
                _ => n,
            }
        })
        .collect();
    let frame = |n: &str, w: &str| template_text(template, n, w);
    // (kind, the row it edits or itself, text)
    let mut texts: Vec<(&str, usize, String)> =
        names.iter().enumerate().map(|(i, n)| ("row", i, frame(n, "terms"))).collect();
    for r in (0..variants).map(|i| i * rows / variants.max(1)) {
        let (n, t) = (&names[r], frame(&names[r], "terms"));
        let len = n.chars().count();
        let dropped: String = n.chars().enumerate().filter(|&(i, _)| i != len / 2).map(|(_, c)| c).collect();
        texts.push(("full stop", r, format!("{t}.")));
        texts.push(("frame word", r, frame(n, "words")));
        texts.push(("appended", r, format!("{t} See the notes at the end of this page for the locale it reads.")));
        texts.push(("line before", r, format!("From the manual pages, release 6.9. {t}")));
        texts.push(("name last letter", r, frame(&changed(n, len - 1), "terms")));
        texts.push(("name middle letter", r, frame(&changed(n, len / 2), "terms")));
        texts.push(("name two letters", r, frame(&changed(&changed(n, len / 3), 2 * len / 3), "terms")));
        texts.push(("name letter dropped", r, frame(&dropped, "terms")));
        texts.push(("space", r, t.replacen(' ', "  ", 1)));
        texts.push(("upper case", r, t.to_uppercase()));
    }
    texts
}

/// Calls `each(id, text)` for `n` texts of `file` (one a line), ids from 1: 90% its first
/// lines, then 10% reposts of every 9th of those (the first sentence dropped, one character
/// changed, or a source line added, in turn), streamed from a second reading.
pub fn for_each_text(file: &str, n: usize, mut each: impl FnMut(i64, &str)) {
    let fresh = n - n / 10;
    let lines = || std::io::BufReader::new(std::fs::File::open(file).expect("the texts' file")).lines();
    let mut id = 0i64;
    for line in lines().take(fresh) {
        id += 1;
        each(id, &line.expect("a line"));
    }
    let mut left = n - fresh;
    for (i, line) in lines().take(fresh).enumerate() {
        if left == 0 {
            break;
        }
        if i % 9 != 4 {
            continue;
        }
        let t = line.expect("a line");
        let repost = match (i / 9) % 3 {
            0 => t.find(['。', '！', '？']).map_or(t.clone(), |at| t[at + 3..].to_string()),
            1 => t.chars().enumerate().map(|(k, c)| if k == 1 + i % 50 { '某' } else { c }).collect(),
            _ => format!("（新华社北京１月１日电）{t}"),
        };
        id += 1;
        left -= 1;
        each(id, &repost);
    }
}

/// CPU seconds of this process so far (user and system, all threads), from /proc/self/stat:
/// figures that a busy shared machine does not inflate as it does wall seconds.
pub fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Function names of 10 to 20 random letters, from `seed` (xorshift): the template's fillers.
pub struct Names(u64);

impl Names {
    pub fn new(seed: u64) -> Names {
        Names(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn next_name(&mut self) -> String {
        let len = 10 + self.next_u64() % 11;
        (0..len).map(|_| (b'a' + (self.next_u64() % 26) as u8) as char).collect()
    }
}

/// A stopwatch: this thread's CPU time (Linux schedstat; on a shared machine it does not
/// count the time other processes take), or wall time where other threads do the work.
pub enum Watch {
    Cpu(f64),
    Wall(Instant),
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat): unlike wall time, it does
/// not count the time other processes on a shared machine take from us.
pub fn thread_cpu_ns() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().and_then(|ns| ns.parse().ok()).expect("schedstat ns")
}

impl Watch {
    pub fn cpu() -> Watch {
        Watch::Cpu(thread_cpu_ns())
    }

    pub fn wall() -> Watch {
        Watch::Wall(Instant::now())
    }

    /// Nanoseconds per row of `rows` rows since the start.
    pub fn ns_per_row(&self, rows: usize) -> f64 {
        let ns = match self {
            Watch::Cpu(t0) => thread_cpu_ns() - t0,
            Watch::Wall(t0) => t0.elapsed().as_nanos() as f64,
        };
        ns / rows.max(1) as f64
    }
}

/// The baseline, in ns per corpus row: one XOR-popcount of every corpus fingerprint
/// against one value, in order (a sequential read and the cheapest comparison), in this
/// thread's CPU time, over passes enough for at least 2^27 rows (the clock advances in
/// scheduler ticks).
pub fn sequential_pass(fps: &[u64]) -> f64 {
    let passes = (1usize << 27).div_ceil(fps.len().max(1));
    let watch = Watch::cpu();
    for s in 0..passes as u64 {
        black_box(fps.iter().filter(|&&fp| (fp ^ mix(s, 2)).count_ones() <= 3).count());
    }
    watch.ns_per_row(passes * fps.len())
}

/// The corpus fingerprints `fps` looked up in `t` in chunks of `size` rows (as the
/// caller of `groups_near_chunk` does, without taking the pairs): ns per corpus row by
/// `watch`, started here.
pub fn look_up(t: &BatchTables, fps: &[u64], size: usize, watch: fn() -> Watch) -> f64 {
    let (mut scratch, mut out) = (ChunkScratch::default(), Vec::new());
    let watch = watch();
    for c in fps.chunks(size) {
        out.clear();
        t.groups_near_chunk(c, &mut scratch, &mut out);
    }
    watch.ns_per_row(fps.len())
}

/// `ns` ns per row, and its ratio to the baseline `base`.
pub fn figure(ns: f64, base: f64) -> String {
    format!("{ns:.1} ns/row ({:.1}x seq)", ns / base)
}
