//! The man page (`scribe --generate man`, `man/scribe.1`): clap_mangen's sections for the
//! filter, then one section per subcommand written from the same clap definitions as its
//! `--help`, so that every subcommand and option is in the page and none refers to a page that
//! does not exist.

use std::io::{self, Write};

use clap::{Arg, Command, CommandFactory};

use crate::cli::Cli;

/// Writes the whole page.
pub(crate) fn write(out: &mut dyn Write) -> io::Result<()> {
    let mut command = Cli::command();
    // Built, so that each argument says how many values it takes and globals reach subcommands.
    command.build();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    out.write_all(b".SH SUBCOMMANDS\n")?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        subcommand(out, sub)?;
    }
    man.render_extra_section(out)?;
    man.render_version_section(out)
}

/// One subcommand: its synopsis, what it does and each of its options and arguments.
fn subcommand(out: &mut dyn Write, sub: &Command) -> io::Result<()> {
    let name = sub.get_name();
    writeln!(out, ".SS \"scribe {name}\"")?;
    writeln!(
        out,
        "\\fBscribe {name}\\fR [\\fIOPTIONS\\fR]{}",
        positionals(sub)
    )?;
    writeln!(out, ".br")?;
    if let Some(about) = sub.get_long_about().or(sub.get_about()) {
        writeln!(out, "{}", roff(&about.to_string()))?;
    }
    for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
        writeln!(out, ".TP")?;
        writeln!(out, "{}", arg_heading(arg))?;
        if let Some(help) = arg.get_long_help().or(arg.get_help()) {
            writeln!(out, "{}", roff(&help.to_string()))?;
        }
    }
    if let Some(after) = sub.get_after_long_help().or(sub.get_after_help()) {
        writeln!(out, ".PP")?;
        writeln!(out, "{}", roff(&after.to_string()))?;
    }
    Ok(())
}

/// ` OLD NEW` for a subcommand's positional arguments.
fn positionals(sub: &Command) -> String {
    sub.get_positionals()
        .filter(|a| !a.is_hide_set())
        .map(|a| format!(" \\fI{}\\fR", roff(&value_name(a))))
        .collect()
}

/// `\fB\-o\fR, \fB\-\-output\-dir\fR \fIDIR\fR` for an option; the value's name for a positional.
fn arg_heading(arg: &Arg) -> String {
    if arg.is_positional() {
        return format!("\\fI{}\\fR", roff(&value_name(arg)));
    }
    let mut flags = Vec::new();
    if let Some(s) = arg.get_short() {
        flags.push(format!("\\fB\\-{}\\fR", roff(&s.to_string())));
    }
    if let Some(l) = arg.get_long() {
        flags.push(format!("\\fB\\-\\-{}\\fR", roff(l)));
    }
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    let value = if takes_value {
        format!(" \\fI{}\\fR", roff(&value_name(arg)))
    } else {
        String::new()
    };
    format!("{}{value}", flags.join(", "))
}

/// The first value name clap shows for an argument, else its id in capitals.
fn value_name(arg: &Arg) -> String {
    arg.get_value_names()
        .and_then(|names| names.first())
        .map_or_else(|| arg.get_id().as_str().to_uppercase(), ToString::to_string)
}

/// Text as roff reads it literally: backslashes and hyphens escaped, and a line that would begin
/// with a request character (`.` or `'`) guarded.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e")
        .replace('-', "\\-")
        .lines()
        .map(|l| {
            if l.starts_with(['.', '\'']) {
                format!("\\&{l}")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
