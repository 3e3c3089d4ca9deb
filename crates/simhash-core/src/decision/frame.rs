//! Templates from the table (decision 3): where a text's frame-mates vary. A table full of one
//! template holds many rows that differ from each other in the same few places, the template's
//! slots ("… Value %s() Thread safety MT-Safe", one function name a row); a slot's filler is the
//! row's content, however little of the row it is. The candidates a dedup path finds for a
//! text are its frame-mates when there is a template, so they tell its slots: a position of the
//! text that two or more candidates fill with different tokens is a slot. A position where the
//! candidates agree with each other is frame, even where the text itself differs from them (a
//! typo of a repost is no slot, since its frame-mates spell the word one way).
//!
//! The decision then prices a substitution at a slot of the new text as other content, whatever
//! the text's length (`fitted`'s feature "slot"). Without two frame-mates there is no frame.

use super::diff::Comparison;
use super::tokens::Tokens;

/// The most frame-mates read: enough to see a slot vary, few enough to cost little (each is
/// one alignment with the text, about linear in its tokens).
pub const MATES: usize = 16;

/// A text's slots: for each of its tokens, whether its frame-mates fill it differently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frame {
    slots: Vec<bool>,
}

impl Frame {
    /// The slots of `text` among `mates` (at most [`MATES`] read); `tick` now and then.
    pub fn of(text: &Tokens, mates: &[&Tokens], tick: &mut dyn FnMut()) -> Frame {
        let n = text.tokens.len();
        // Per position: the first filler seen there, and whether another one was seen.
        let mut first: Vec<Option<u64>> = vec![None; n];
        let mut slots = vec![false; n];
        for mate in mates.iter().take(MATES) {
            let c = Comparison::of(text, mate, tick);
            for d in &c.diffs {
                let h = d.hunk;
                if !h.is_substitution() {
                    continue;
                }
                // The text's side and the mate's, whichever order the comparison took.
                let ((x0, x1), (mate, y0, y1)) =
                    if c.swapped { ((h.b0, h.b1), (c.a, h.a0, h.a1)) } else { ((h.a0, h.a1), (c.b, h.b0, h.b1)) };
                // What fills each position: token for token where both sides have as many. A hunk
                // of other lengths tells nothing of positions (edits near each other merge, and a
                // character put for punctuation adds a token): each copy of a paragraph edited
                // in other places would make its edits slots.
                if x1 - x0 != y1 - y0 {
                    continue;
                }
                let filler = |i: usize| mate.tokens[y0 + i - x0].hash;
                // The text's own side, to see which positions the mate really fills otherwise
                // (a hunk that merged two edits holds equal tokens between them).
                let own = if c.swapped { c.b } else { c.a };
                for i in x0..x1 {
                    let f = filler(i);
                    if f == own.tokens[i].hash {
                        continue;
                    }
                    match first[i] {
                        None => first[i] = Some(f),
                        Some(g) if g != f => slots[i] = true,
                        Some(_) => {}
                    }
                }
            }
        }
        Frame { slots }
    }

    /// Whether token `i` of the text is a slot.
    pub fn is_slot(&self, i: usize) -> bool {
        self.slots.get(i).copied().unwrap_or(false)
    }

    /// Whether the text has a slot at all.
    pub fn any(&self) -> bool {
        self.slots.iter().any(|&s| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Tokens {
        Tokens::of_read(s, &mut || ())
    }

    #[test]
    fn slots_are_where_mates_vary() {
        let frame = |id: &str| {
            format!("For an explanation of the terms used in this section, see attributes(7). Interface Attribute Value {id}() Thread safety MT-Safe")
        };
        let text = t(&frame("clock_getcpuclockid"));
        let mates = [t(&frame("expf")), t(&frame("strtok_r")), t(&frame("getenv"))];
        let refs: Vec<&Tokens> = mates.iter().collect();
        let f = Frame::of(&text, &refs, &mut || ());
        let slots: Vec<&str> = (0..text.tokens.len()).filter(|&i| f.is_slot(i)).map(|i| text.str(i)).collect();
        assert_eq!(slots, ["clock_getcpuclockid"]);
        // One mate alone tells no slot; a typo of the text's that every mate spells one way is frame.
        assert!(!Frame::of(&text, &refs[..1], &mut || ()).any());
        let typo = t(&frame("clock_getcpuclockid").replace("explanation", "explenation"));
        let f = Frame::of(&typo, &refs, &mut || ());
        let slots: Vec<&str> = (0..typo.tokens.len()).filter(|&i| f.is_slot(i)).map(|i| typo.str(i)).collect();
        assert_eq!(slots, ["clock_getcpuclockid"]);
    }
}
