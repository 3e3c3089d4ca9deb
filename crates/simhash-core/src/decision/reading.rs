//! Decision 3's reading of a normalized text before its tokens: what a reader reads past.
//! - **List markers** at the start of the text or of a clause are no figures: "１．按照…",
//!   "4、自带XP…", "（四）…", "(a) …" read as "按照…", "自带XP…". A marker is one or two
//!   digits, one Chinese numeral or one Latin letter, in brackets or followed by `.` or `、`,
//!   at the text's start or after `。！？；;:：` or a line break (NFKC has made `．` `.`,
//!   `（` `(`, full-width digits ASCII).
//! - **Chinese numerals** read as the digits they stand for: "一九九九年" is "1999年", "二十三"
//!   "23", "十二月" "12月", "第二次" "第2次". A run of numerals is a number when it has a
//!   place (十 百 千 万) and two characters or more, when it is three digit characters or more
//!   before 年, or when one numeral stands between 第 and a counter or before 月 日 号 (a
//!   lone 一 elsewhere is "one", a word).
//!
//! Only the decision reads so; the similarity measure and its index keys do not (a change
//! there would be a new measure version).

use std::borrow::Cow;

/// The value of a Chinese digit character, if it is one.
fn digit(c: char) -> Option<u64> {
    Some(match c {
        '〇' | '零' => 0,
        '一' => 1,
        '二' | '两' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

/// The value of a place character.
fn place(c: char) -> Option<u64> {
    Some(match c {
        '十' => 10,
        '百' => 100,
        '千' => 1000,
        '万' => 10_000,
        _ => return None,
    })
}

fn numeral(c: char) -> bool {
    digit(c).is_some() || place(c).is_some()
}

/// Counters after which one numeral is a number (第二次, 三月, 五号).
const COUNTERS: &str = "年月日号次届条章节期位名";

/// The number a run of numerals writes, as digits: positional ("二十三" 23, "一百零五" 105,
/// "十二" 12) when it has a place, else digit by digit ("一九九九" 1999).
fn value(run: &[char]) -> String {
    if !run.iter().any(|&c| place(c).is_some()) {
        return run.iter().map(|&c| char::from(b'0' + digit(c).unwrap_or(0) as u8)).collect();
    }
    let (mut total, mut section, mut pending) = (0u64, 0u64, None::<u64>);
    for &c in run {
        if let Some(d) = digit(c) {
            pending = Some(d);
        } else if let Some(p) = place(c) {
            if p == 10_000 {
                total += (section + pending.unwrap_or(0)) * p;
                section = 0;
            } else {
                section += pending.unwrap_or(1) * p;
            }
            pending = None;
        }
    }
    (total + section + pending.unwrap_or(0)).to_string()
}

/// Whether a clause starts right after `prev` (the character before, None at the start).
fn clause_start(prev: Option<char>) -> bool {
    prev.is_none_or(|p| matches!(p, '。' | '!' | '?' | '！' | '？' | ';' | '；' | ':' | '：' | '\n'))
}

/// How many characters of `t` from `i` are a list marker (0 when none), `t[i]` at a clause
/// start (white space skipped before it by the caller).
fn marker(t: &[char], i: usize) -> usize {
    let at = |k: usize| t.get(i + k).copied();
    let item = |c: char| c.is_ascii_alphabetic() || digit(c).is_some() || c == '十';
    // "(a)", "(4)", "(四)", "(12)"
    if at(0) == Some('(') {
        let mut k = 1;
        while k <= 2 && at(k).is_some_and(|c| c.is_ascii_digit()) {
            k += 1;
        }
        if k == 1 && at(1).is_some_and(item) {
            k = 2;
        }
        return if k > 1 && at(k) == Some(')') { k + 1 } else { 0 };
    }
    // "1.", "12、", "a.", "四、"
    let mut k = 0;
    while k < 2 && at(k).is_some_and(|c| c.is_ascii_digit()) {
        k += 1;
    }
    if k == 0 && at(0).is_some_and(|c| item(c) && !c.is_ascii_digit()) {
        k = 1;
    }
    let after = at(k);
    // "1.5" is a figure and "a.m" a word: the mark must not run into a letter or digit.
    let ends =
        matches!(after, Some('、')) || (after == Some('.') && !at(k + 1).is_some_and(|c| c.is_ascii_alphanumeric()));
    if k > 0 && ends && (k == 1 || at(0).is_some_and(|c| c.is_ascii_digit())) {
        // A lone Latin letter before "." must stand alone ("a. …", not "Dr. …").
        k + 1
    } else {
        0
    }
}

/// `text` (normalized) as decision 3 reads it (module docs); borrowed when nothing changes.
pub fn read(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| numeral(c) || matches!(c, '(' | '.' | '、')) {
        return Cow::Borrowed(text);
    }
    let t: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        if clause_start(prev) && !c.is_whitespace() {
            let m = marker(&t, i);
            if m > 0 {
                i += m;
                while i < t.len() && t[i].is_whitespace() {
                    i += 1;
                }
                prev = Some(':');
                continue;
            }
        }
        if numeral(c) {
            let mut j = i;
            while j < t.len() && numeral(t[j]) {
                j += 1;
            }
            let run = &t[i..j];
            let next = t.get(j).copied();
            let has_place = run.iter().any(|&c| place(c).is_some());
            let counted = next.is_some_and(|n| COUNTERS.contains(n));
            let number = (has_place && (run.len() >= 2 || counted))
                || (run.len() >= 3 && next == Some('年'))
                || (run.len() == 1 && (prev == Some('第') && counted || next.is_some_and(|n| "月日号".contains(n))));
            if number {
                out.push_str(&value(run));
            } else {
                out.extend(run);
            }
            prev = run.last().copied();
            i = j;
            continue;
        }
        out.push(c);
        if !c.is_whitespace() {
            prev = Some(c);
        }
        i += 1;
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn numerals_read_as_digits() {
        assert_eq!(read("一九九九年十二月"), "1999年12月");
        assert_eq!(read("第二十三次会议"), "第23次会议");
        assert_eq!(read("第二次"), "第2次");
        assert_eq!(read("一百零五人"), "105人");
        assert_eq!(read("三万五千"), "35000");
        assert_eq!(read("一月一日"), "1月1日");
        // Words, not numbers.
        assert_eq!(read("一个人"), "一个人");
        assert_eq!(read("四五个"), "四五个");
        assert_eq!(read("统一战线"), "统一战线");
    }

    #[test]
    fn list_markers_are_read_past() {
        assert_eq!(read("1.按照规定"), "按照规定");
        assert_eq!(read("关于管辖。4、自带XP"), "关于管辖。自带XP");
        assert_eq!(read("(四)加强管理"), "加强管理");
        assert_eq!(read("(a) the first item"), "the first item");
        assert_eq!(read("12. twelve"), "twelve");
        // Figures and words, not markers.
        assert_eq!(read("1.5 liters"), "1.5 liters");
        assert_eq!(read("dr. smith"), "dr. smith");
        assert_eq!(read("version 3.6."), "version 3.6.");
        assert_eq!(read("(1998) report"), "(1998) report");
    }
}
