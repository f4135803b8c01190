//! Each language's listed words as a small open-addressing table, built once: the lexer asks
//! what a word is of nearly every word it reads, and most are not listed, so a miss must be
//! cheap. A word's slot comes from its length and three of its bytes; with the table at most a
//! quarter full, a word not listed usually meets an empty slot at once.

use std::sync::OnceLock;

use crate::language::{Kind, Language, Traits};
use crate::languages::LANGUAGES;

/// No listed word is longer (a test checks the lists): a longer word is not looked up.
pub(crate) const LONGEST: usize = 24;

/// A slot of the table: a listed word and what it is, or nothing.
type Slot = Option<(&'static [u8], Kind)>;

/// One language's listed words, by what they are.
pub(crate) struct Lexicon {
    /// The words and their kinds. Its length is a power of two.
    slots: Box<[Slot]>,
    /// Keywords are matched whatever their case (the lists are in lower case).
    caseless: bool,
}

impl Lexicon {
    /// The table of `lang`'s lists. A word in two lists is what the later one says.
    fn of(lang: &Language) -> Lexicon {
        let words: Vec<(&'static [u8], Kind)> = lang
            .vocabulary
            .lists()
            .into_iter()
            .flat_map(|(list, kind)| {
                list.split_ascii_whitespace()
                    .map(move |w| (w.as_bytes(), kind))
            })
            .collect();
        let size = (words.len() * 4).next_power_of_two().max(8);
        let mut lexicon = Lexicon {
            slots: vec![None; size].into_boxed_slice(),
            caseless: lang.traits.has(Traits::CASELESS),
        };
        for (word, kind) in words {
            let mask = lexicon.slots.len() - 1;
            let mut i = slot(word) & mask;
            while let Some((w, k)) = &mut lexicon.slots[i] {
                if *w == word {
                    *k = kind;
                    break;
                }
                i = (i + 1) & mask;
            }
            if lexicon.slots[i].is_none() {
                lexicon.slots[i] = Some((word, kind));
            }
        }
        lexicon
    }

    /// What `word` is, if the language lists it (whatever its case, where the language is
    /// caseless).
    pub(crate) fn kind(&self, word: &[u8]) -> Option<Kind> {
        if word.len() > LONGEST || word.is_empty() {
            return None;
        }
        if self.caseless {
            let mut lower = [0u8; LONGEST];
            let lower = &mut lower[..word.len()];
            lower.copy_from_slice(word);
            lower.make_ascii_lowercase();
            return self.find(lower);
        }
        self.find(word)
    }

    /// The kind of a word as the lists write it.
    fn find(&self, word: &[u8]) -> Option<Kind> {
        let mask = self.slots.len() - 1;
        let mut i = slot(word) & mask;
        while let Some((w, k)) = self.slots[i] {
            if w == word {
                return Some(k);
            }
            i = (i + 1) & mask;
        }
        None
    }
}

/// Where a (non-empty) word's slot search starts, before the table's mask.
fn slot(word: &[u8]) -> usize {
    let n = word.len();
    let mix = u32::from(word[0])
        ^ u32::from(word[n - 1]) << 7
        ^ u32::from(word[n / 2]) << 14
        ^ (n as u32) << 21;
    (mix.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// The lexicon of `lang` (built with every other language's the first time); an empty one for
/// a language not in [`LANGUAGES`].
pub(crate) fn of(lang: &Language) -> &'static Lexicon {
    static ALL: OnceLock<Vec<Lexicon>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let none = Lexicon {
            slots: vec![None; 1].into_boxed_slice(),
            caseless: false,
        };
        LANGUAGES
            .iter()
            .map(|l| Lexicon::of(l))
            .chain([none])
            .collect()
    });
    let at = LANGUAGES.iter().position(|l| std::ptr::eq(*l, lang));
    &all[at.unwrap_or(LANGUAGES.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed word is found as what the last list that has it says, and a word one
    /// letter longer is found only when it is listed too.
    #[test]
    fn every_listed_word_is_found() {
        for &l in LANGUAGES {
            let mut want = std::collections::HashMap::new();
            for (list, kind) in l.vocabulary.lists() {
                for w in list.split_ascii_whitespace() {
                    want.insert(w.to_owned(), kind);
                }
            }
            let lexicon = of(l);
            for (w, kind) in &want {
                assert_eq!(lexicon.kind(w.as_bytes()), Some(*kind), "{}: {w}", l.name());
                let longer = format!("{w}q");
                assert_eq!(lexicon.kind(longer.as_bytes()), want.get(&longer).copied());
            }
            assert_eq!(lexicon.kind(b""), None);
        }
    }
}
