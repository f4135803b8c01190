//! Why a turn is synthetic: the harness's machinery a turn carries (§4 rows 3 and 4), in the
//! finer form the renderers draw and the closed §14 `reason` set it is written as.

use serde::{Deserialize, Serialize};

/// What kind of harness machinery a synthetic turn is (§4 rows 3 and 4). Finer than §14's closed
/// `reason` set, because the renderers draw a bash command, a memory note or an interrupt each
/// its own way; in JSON it is written as §14's `reason` (the closed set, `design_reason`) and,
/// when that says less, this value as `detail` beside it, so a §14-typed reader gets only the
/// values it knows and nothing is lost. Its JSON name is the variant's, in kebab case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum SyntheticReason {
    SkillBody,
    SystemReminder,
    HookOutput,
    SlashCommand,
    LocalCommandOutput,
    LocalCommandCaveat,
    Interrupt,
    BashInput,
    BashOutput,
    MemoryInput,
    CompactSummary,
    /// A slash command's expansion: the body of its prompt file, sent to the model after the
    /// command's record (§4 row 3 lists "slash-command expansion" among flagged context).
    CommandExpansion,
    /// What an IDE attached before the typed words (`<ide_opened_file>`, `<ide_selection>`).
    IdeContext,
    Other,
}

/// Whose a synthetic turn's text is: the harness's, or a person's at the prompt (what they
/// typed, or what the command they typed printed).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    Machinery,
    Typed,
    Printed,
}

/// §14's closed set of synthetic reasons: what `origin.reason` may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum DesignReason {
    SkillBody,
    SystemReminder,
    HookOutput,
    SlashCommand,
    Other,
}

impl DesignReason {
    /// Its name as §14 spells it.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

impl SyntheticReason {
    /// The JSON name of this reason (`detail` when it is not one of §14's).
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }

    /// The reason a JSON name stands for (any of them: schema version 2 wrote the finer
    /// ones in `reason`).
    fn from_name(name: &str) -> Option<SyntheticReason> {
        name.parse().ok()
    }

    /// The §14 reason this one falls under, and whose text it is. A local command's output and
    /// a command's expansion are a slash command's (`/cost` printed it, `/review` sent it); the
    /// rest of the CLI's own machinery (caveat, interrupt, bash mode, memory note, compaction
    /// summary) and an IDE's attached context are `other`.
    fn row(self) -> (DesignReason, Act) {
        use {Act::*, DesignReason as D};
        match self {
            SyntheticReason::SkillBody => (D::SkillBody, Machinery),
            SyntheticReason::SystemReminder => (D::SystemReminder, Machinery),
            SyntheticReason::HookOutput => (D::HookOutput, Machinery),
            SyntheticReason::SlashCommand => (D::SlashCommand, Typed),
            SyntheticReason::LocalCommandOutput => (D::SlashCommand, Printed),
            SyntheticReason::CommandExpansion => (D::SlashCommand, Machinery),
            SyntheticReason::LocalCommandCaveat => (D::Other, Machinery),
            SyntheticReason::IdeContext => (D::Other, Machinery),
            SyntheticReason::Interrupt => (D::Other, Machinery),
            SyntheticReason::BashInput => (D::Other, Typed),
            SyntheticReason::BashOutput => (D::Other, Printed),
            SyntheticReason::MemoryInput => (D::Other, Typed),
            SyntheticReason::CompactSummary => (D::Other, Machinery),
            SyntheticReason::Other => (D::Other, Machinery),
        }
    }

    /// The §14 reason this one falls under (see [`SyntheticReason::row`]).
    pub(crate) fn design_reason(self) -> DesignReason {
        self.row().0
    }

    /// What a person did at the prompt without asking the model (a CLI slash command, a bash-mode
    /// command and its output, a memory note, a local command's output): machinery, but the
    /// reader's own action, so it is shown without `--context`, quietly.
    pub(crate) fn is_person_action(self) -> bool {
        self.row().1 != Act::Machinery
    }

    /// Whether the text is what a command printed (a local command's or a bash-mode command's
    /// output) rather than the command itself: views label the two differently.
    pub(crate) fn is_command_output(self) -> bool {
        self.row().1 == Act::Printed
    }

    /// The finer name written as `detail`, when the §14 reason does not already say it.
    fn detail(self) -> Option<&'static str> {
        (self.design_reason().name() != self.name()).then(|| self.name())
    }
}

/// The JSON shape of a synthetic origin's fields: `reason` (§14's) and `detail` (scribe's).
#[serde_with::skip_serializing_none]
#[derive(Serialize, Deserialize)]
struct SyntheticWire {
    reason: String,
    detail: Option<String>,
}

impl Serialize for SyntheticReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SyntheticWire {
            reason: self.design_reason().name().to_owned(),
            detail: self.detail().map(str::to_owned),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for SyntheticReason {
    /// A `detail` this scribe knows wins; otherwise the `reason` (any of its names, since
    /// a version-2 transcript wrote them there); a `detail` from a later scribe falls back to
    /// its §14 `reason`.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = SyntheticWire::deserialize(d)?;
        w.detail
            .as_deref()
            .and_then(SyntheticReason::from_name)
            .or_else(|| SyntheticReason::from_name(&w.reason))
            .ok_or_else(|| {
                serde::de::Error::custom(format!("unknown synthetic reason {:?}", w.reason))
            })
    }
}
