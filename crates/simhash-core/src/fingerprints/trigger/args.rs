//! The arguments of the fingerprint dedup triggers, `simhash_dedup_trigger(fp_column,
//! text_column, max_distance, action [, link_column] [, options])` and
//! `simhash_dedup_fp_trigger(fp_column, max_distance, action [, link_column])`, on the shared
//! grammar of `crate::trigger` (options last, action and link column, the errors).

use crate::trigger::{parse_action_and_link, split_options, Action, DedupError};

/// The argument lists the fingerprint dedup triggers accept, for messages.
pub const DEDUP_SIGNATURE: &str =
    "4 to 6 arguments (fp_column, text_column, max_distance, action [, link_column] [, options])";
pub const DEDUP_FP_SIGNATURE: &str = "3 or 4 arguments (fp_column, max_distance, action [, link_column])";

/// The arguments of `simhash_dedup_trigger(fp_column, text_column, max_distance, action
/// [, link_column] [, options])`, checked (the options only split off: the SQL layer
/// parses them), or of `simhash_dedup_fp_trigger(fp_column, max_distance, action [,
/// link_column])`, which checks a fingerprint given with the row (no text column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DedupArgs {
    pub fp_column: String,
    /// None for `simhash_dedup_fp_trigger`.
    pub text_column: Option<String>,
    pub max_distance: u32,
    pub action: Action,
    /// Only (and always) with [`Action::Link`].
    pub link_column: Option<String>,
    /// The trailing options argument, JSON text as written (see [`is_options`]).
    pub options: Option<String>,
}

/// Parses a max distance given as a trigger argument (trigger arguments are strings).
pub fn parse_max_distance(s: &str) -> Result<u32, DedupError> {
    match s.trim().parse::<u32>() {
        Ok(k) if k <= 64 => Ok(k),
        _ => Err(DedupError::MaxDistance(s.to_owned())),
    }
}

/// Checks the arguments of `simhash_dedup_trigger`.
pub fn parse_args<S: AsRef<str>>(args: &[S]) -> Result<DedupArgs, DedupError> {
    let (args, options) = split_options(args, 4, 5, DEDUP_SIGNATURE)?;
    let (max_distance, action, link_column) = parse_check(args, 2)?;
    Ok(DedupArgs {
        fp_column: args[0].as_ref().to_owned(),
        text_column: Some(args[1].as_ref().to_owned()),
        max_distance,
        action,
        link_column,
        options,
    })
}

/// Checks the arguments of `simhash_dedup_fp_trigger`.
pub fn parse_fp_args<S: AsRef<str>>(args: &[S]) -> Result<DedupArgs, DedupError> {
    let (args, options) = split_options(args, 3, 4, DEDUP_FP_SIGNATURE)?;
    if options.is_some() {
        return Err(DedupError::OptionsNotTaken);
    }
    let (max_distance, action, link_column) = parse_check(args, 1)?;
    Ok(DedupArgs {
        fp_column: args[0].as_ref().to_owned(),
        text_column: None,
        max_distance,
        action,
        link_column,
        options,
    })
}

/// `max_distance, action [, link_column]`, the tail both dedup triggers share, starting at
/// `args[at]` (2 or 3 arguments from there).
fn parse_check<S: AsRef<str>>(args: &[S], at: usize) -> Result<(u32, Action, Option<String>), DedupError> {
    let max_distance = parse_max_distance(args[at].as_ref())?;
    let (action, link_column) = parse_action_and_link(args, at + 1)?;
    Ok((max_distance, action, link_column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args() {
        let ok = parse_args(&["fp", "body", "3", "reject"]).unwrap();
        assert_eq!(ok.max_distance, 3);
        assert_eq!(ok.action, Action::Reject);
        assert_eq!(ok.link_column, None);
        assert_eq!(ok.options, None);
        let link = parse_args(&["fp", "body", " 64 ", "LINK", "dup_of"]).unwrap();
        assert_eq!((link.max_distance, link.action), (64, Action::Link));
        assert_eq!(link.link_column.as_deref(), Some("dup_of"));
        assert_eq!(link.options, None);
        assert_eq!(
            parse_args(&["fp", "body", "3"]),
            Err(DedupError::ArgCount { got: 3, options: false, expected: DEDUP_SIGNATURE })
        );
        assert!(parse_args(&["fp", "body", "3"]).unwrap_err().is_protocol());
        assert_eq!(parse_args(&["fp", "body", "65", "skip"]), Err(DedupError::MaxDistance("65".into())));
        assert_eq!(parse_args(&["fp", "body", "-1", "skip"]), Err(DedupError::MaxDistance("-1".into())));
        assert_eq!(parse_args(&["fp", "body", "x", "skip"]), Err(DedupError::MaxDistance("x".into())));
        assert_eq!(parse_args(&["fp", "body", "3", "drop"]), Err(DedupError::Action("drop".into())));
        assert_eq!(parse_args(&["fp", "body", "3", "link"]), Err(DedupError::LinkColumnMissing { position: 5 }));
        assert_eq!(
            parse_args(&["fp", "body", "3", "skip", "d"]),
            Err(DedupError::LinkColumnUnexpected { action: Action::Skip, position: 5 })
        );
        assert_eq!(
            DedupError::Action("drop".into()).to_string(),
            "unknown action \"drop\": expected reject, skip or link"
        );
    }

    #[test]
    fn fp_trigger_args() {
        let ok = parse_fp_args(&["fp", "3", "reject"]).unwrap();
        assert_eq!(
            (ok.fp_column.as_str(), ok.text_column, ok.max_distance, ok.action),
            ("fp", None, 3, Action::Reject)
        );
        let link = parse_fp_args(&["fp", "2", "link", "dup_of"]).unwrap();
        assert_eq!(link.link_column.as_deref(), Some("dup_of"));
        assert_eq!(parse_fp_args(&["fp", "3", "link"]), Err(DedupError::LinkColumnMissing { position: 4 }));
        assert_eq!(
            parse_fp_args(&["fp", "3", "skip", "d"]).unwrap_err().to_string(),
            "a fourth argument (link column) is only allowed with action link, not skip"
        );
        assert_eq!(parse_fp_args(&["fp", "3", "skip", "{}"]), Err(DedupError::OptionsNotTaken));
        assert_eq!(parse_fp_args(&["fp", "body", "3", "reject"]), Err(DedupError::MaxDistance("body".into())));
        assert_eq!(
            parse_fp_args(&["fp", "3"]),
            Err(DedupError::ArgCount { got: 2, options: false, expected: DEDUP_FP_SIGNATURE })
        );
    }

    #[test]
    fn args_with_options() {
        // 5 arguments, the last options: no link column.
        let o = parse_args(&["fp", "body", "3", "reject", r#"{"definition": "0"}"#]).unwrap();
        assert_eq!((o.action, o.link_column.as_deref()), (Action::Reject, None));
        assert_eq!(o.options.as_deref(), Some(r#"{"definition": "0"}"#));
        // Leading whitespace is allowed, and the text is kept as written.
        let o = parse_args(&["fp", "body", "3", "skip", "  \n{}"]).unwrap();
        assert_eq!(o.options.as_deref(), Some("  \n{}"));
        // 6: link column, then options.
        let o = parse_args(&["fp", "body", "3", "link", "dup_of", r#"{"tokenizer": "ngram", "n": 2}"#]).unwrap();
        assert_eq!((o.action, o.link_column.as_deref()), (Action::Link, Some("dup_of")));
        assert_eq!(o.options.as_deref(), Some(r#"{"tokenizer": "ngram", "n": 2}"#));
        // Options do not stand in for the link column.
        assert_eq!(parse_args(&["fp", "body", "3", "link", "{}"]), Err(DedupError::LinkColumnMissing { position: 5 }));
        assert_eq!(
            parse_args(&["fp", "body", "3", "reject", "dup_of", "{}"]),
            Err(DedupError::LinkColumnUnexpected { action: Action::Reject, position: 5 })
        );
        // Options anywhere but last.
        assert_eq!(
            parse_args(&["fp", "body", "3", "link", "{}", "dup_of"]),
            Err(DedupError::OptionsNotLast { position: 5 })
        );
        assert_eq!(parse_args(&["fp", "body", "{}", "3", "reject"]), Err(DedupError::OptionsNotLast { position: 3 }));
        assert_eq!(parse_args(&["fp", "body", "3", "{}", "{}"]), Err(DedupError::OptionsNotLast { position: 4 }));
        assert!(!parse_args(&["fp", "body", "3", "link", "{}", "dup_of"]).unwrap_err().is_protocol());
        // Six arguments need options last.
        assert_eq!(
            parse_args(&["fp", "body", "3", "link", "dup_of", "ngram"]),
            Err(DedupError::NotOptions { position: 6, got: "ngram".into() })
        );
        // Counts: 4 to 6, options included; the error is the declaration's (39P01).
        for n in [0, 1, 2, 3, 7, 8] {
            let args: Vec<&str> = ["fp", "body", "3", "link", "dup_of", "{}", "{}", "{}"][..n].to_vec();
            let e = parse_args(&args).unwrap_err();
            assert_eq!(e, DedupError::ArgCount { got: n, options: false, expected: DEDUP_SIGNATURE }, "{n}");
            assert!(e.is_protocol());
        }
        // Options after too few arguments.
        let e = parse_args(&["fp", "body", "3", "{}"]).unwrap_err();
        assert_eq!(e, DedupError::ArgCount { got: 3, options: true, expected: DEDUP_SIGNATURE });
        assert!(e.is_protocol());
        assert_eq!(
            DedupError::ArgCount { got: 3, options: false, expected: DEDUP_SIGNATURE }.to_string(),
            "expected 4 to 6 arguments (fp_column, text_column, max_distance, action [, link_column] [, options]), got 3"
        );
        assert_eq!(
            e.to_string(),
            "expected 4 to 6 arguments (fp_column, text_column, max_distance, action [, link_column] [, options]), \
             got 3 before the options"
        );
        assert_eq!(
            DedupError::OptionsNotLast { position: 5 }.to_string(),
            "argument 5 looks like options (it begins with \"{\"), but the options must be the last argument"
        );
    }
}
