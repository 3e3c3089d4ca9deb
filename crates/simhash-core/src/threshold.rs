//! The one validation of thresholds (a similarity, containment or resemblance to reach),
//! wherever one comes from: a SQL function's argument, a trigger's argument or option, a
//! run over shards. One kind of bound, one message; every error is SQLSTATE 22023.
//!
//! - [`Bound::Share`], `[0, 1]`: the functions. A measure is a share, so 0 matches every
//!   text and 1 only texts with the same shingles; both are meaningful questions.
//! - [`Bound::Positive`], `(0, 1]`: the dedup triggers. At 0 every row would be every other
//!   row's duplicate.
//! - [`Bound::AtLeast`], `[min, 1]`: bulk runs over shards, which have no banding below
//!   `min` (the functions check [`Bound::Share`] first, so a value over 1 says so).

use std::fmt;

/// What a threshold may be (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// `[0, 1]`.
    Share,
    /// `(0, 1]`.
    Positive,
    /// `[min, 1]`.
    AtLeast(f64),
}

impl Bound {
    /// Whether `t` is within the bound (a NaN never is).
    pub fn holds(self, t: f64) -> bool {
        match self {
            Bound::Share => (0.0..=1.0).contains(&t),
            Bound::Positive => t > 0.0 && t <= 1.0,
            Bound::AtLeast(min) => (min..=1.0).contains(&t),
        }
    }
}

/// A threshold out of its bound. `name` is what the message calls it (`threshold`,
/// `min_similarity`, `option "min_containment"`), `got` the value as the user wrote it (a
/// trigger argument quoted, an option as JSON, a number as PostgreSQL prints a float8).
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdError {
    pub name: String,
    pub got: String,
    pub bound: Bound,
}

impl fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ThresholdError { name, got, .. } = self;
        match self.bound {
            Bound::Share => write!(f, "{name} must be between 0 and 1, got {got}"),
            Bound::Positive => write!(f, "{name} must be a number greater than 0 and at most 1, got {got}"),
            Bound::AtLeast(min) => write!(f, "{name} must be at least {min} over shards, got {got}"),
        }
    }
}

/// `t` if it is within `bound`, else the error that names it `name` and shows `got`.
pub fn check(t: f64, bound: Bound, name: impl Into<String>, got: impl fmt::Display) -> Result<f64, ThresholdError> {
    if bound.holds(t) {
        Ok(t)
    } else {
        Err(ThresholdError { name: name.into(), got: got.to_string(), bound })
    }
}

/// A threshold given as text (a trigger argument: surrounding spaces ignored), within
/// `bound`; the error shows the text quoted, as written.
pub fn parse(s: &str, bound: Bound, name: &str) -> Result<f64, ThresholdError> {
    let t = s.trim().parse::<f64>().unwrap_or(f64::NAN);
    check(t, bound, name, format_args!("\"{s}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        for (t, share, positive, at_least) in [
            (0.0, true, false, false),
            (0.3, true, true, true),
            (0.29, true, true, false),
            (1.0, true, true, true),
            (1.01, false, false, false),
            (-0.5, false, false, false),
            (f64::NAN, false, false, false),
            (f64::INFINITY, false, false, false),
        ] {
            assert_eq!(Bound::Share.holds(t), share, "{t}");
            assert_eq!(Bound::Positive.holds(t), positive, "{t}");
            assert_eq!(Bound::AtLeast(0.3).holds(t), at_least, "{t}");
        }
    }

    /// The messages, one per kind of bound, as the regression tests' expected output has them.
    #[test]
    fn messages() {
        assert_eq!(
            check(1.5, Bound::Share, "threshold", 1.5).unwrap_err().to_string(),
            "threshold must be between 0 and 1, got 1.5"
        );
        assert_eq!(
            parse(" 2", Bound::Positive, "min_similarity").unwrap_err().to_string(),
            "min_similarity must be a number greater than 0 and at most 1, got \" 2\""
        );
        assert_eq!(
            check(0.0, Bound::Positive, "option \"min_containment\"", "0").unwrap_err().to_string(),
            "option \"min_containment\" must be a number greater than 0 and at most 1, got 0"
        );
        assert_eq!(
            check(0.2, Bound::AtLeast(0.3), "min_similarity", 0.2).unwrap_err().to_string(),
            "min_similarity must be at least 0.3 over shards, got 0.2"
        );
        for bad in ["x", "NaN", "inf", "", "0"] {
            assert!(parse(bad, Bound::Positive, "t").is_err(), "{bad}");
        }
        assert_eq!(parse(" 1 ", Bound::Positive, "t"), Ok(1.0));
    }
}
