//! A whole JSON document (an array, or an object over several lines): held to the end, then
//! split into values that are classified like lines and given to the adapter.

use anyhow::Result;

use super::{Delivery, InputDriver};
use crate::diagnostics::Diagnostics;
use crate::input::document::{self, DocValue};
use crate::input::sniff::{self, Evidence, Verdict};
use crate::input::{self, Report, SourceFormat};

impl InputDriver<'_> {
    /// A whole JSON document: its values are classified like lines, then given to the adapter.
    pub(super) fn document(
        &mut self,
        format: SourceFormat,
        text: &str,
        first_line: u64,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<()> {
        let values = match document::values(text, first_line) {
            Ok(v) => v,
            Err((line, what)) => {
                diag.error(
                    self.name,
                    line,
                    &format!("a JSON document that does not parse: {what}"),
                );
                return self.begin(sink, "none");
            }
        };
        let format = match format {
            SourceFormat::Auto => {
                let mut evidence = Evidence::default();
                for DocValue { value, .. } in values.iter().take(sniff::EVIDENCE) {
                    evidence.add(value);
                }
                match evidence.verdict() {
                    Verdict::Agreed(f) | Verdict::Mixed(f, _) => f,
                    Verdict::Unknown(_) => {
                        diag.error(
                            self.name,
                            first_line,
                            &format!(
                                "a JSON document of no format scribe knows ({}); tried {} \
                                 (use --from to force one)",
                                document::describe(&values),
                                sniff::tried()
                            ),
                        );
                        return self.begin(sink, "none");
                    }
                }
            }
            f => f,
        };
        let mut adapter = input::adapter_for(format);
        if self.name != "-" {
            adapter.set_path(self.path);
        }
        self.begin(sink, format.name())?;
        let mut report = Report {
            file: self.name,
            diag,
        };
        adapter.document(values, &mut self.events, &mut report);
        adapter.finish(&mut self.events, &mut report);
        self.drain(adapter.as_mut(), &mut report, sink)?;
        sink.end_of_events()
    }
}
