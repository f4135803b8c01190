//! The input format `--from` names: `auto`, or one of the formats an agent's folder declares
//! (`registry`). It belongs to the input layer: the command line offers the formats, the sniffer
//! picks one, the driver asks it for its decoder.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use super::agent::Format;
use super::registry;

/// `--from`: detect the format, or read every input as one format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum SourceFormat {
    /// Detect from the first JSON lines.
    #[default]
    Auto,
    /// This format.
    Known(&'static Format),
}

impl SourceFormat {
    /// The name used in headers and `--from`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SourceFormat::Auto => "auto",
            SourceFormat::Known(f) => f.name,
        }
    }
}

/// `--from`'s values and their help come from the registry.
impl ValueEnum for SourceFormat {
    fn value_variants<'a>() -> &'a [SourceFormat] {
        &registry::FROM
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            SourceFormat::Auto => "Detect from the first JSON line",
            SourceFormat::Known(f) => f.help,
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}
