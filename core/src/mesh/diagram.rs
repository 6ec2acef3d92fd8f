//! A picture of a mesh run: every frame carried between nodes (or lost),
//! what each node decided, its timers and the harness's own notes, in the
//! order they happened; written as a Mermaid sequence diagram and as an SVG
//! page any browser opens (no script, nothing fetched). A failing
//! simulation seed is read this way rather than as a wall of text.

use std::fmt::Write;

use crate::ids::NodeRid;
use crate::inbound::Inbound;
use crate::wire::{self, Frame};

/// One thing the picture shows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    /// A frame carried from one node to another (`lost`: it never arrived).
    Frame {
        from: u64,
        to: u64,
        label: String,
        lost: bool,
    },
    /// What a node decided, or that its timers ran.
    Note { at: u64, text: String },
    /// The harness's note over every node (a step of the simulation).
    Span { text: String },
}

/// What a mesh run did, as it happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagram {
    nodes: u64,
    events: Vec<Event>,
}

impl Diagram {
    pub(super) fn new(nodes: u64) -> Self {
        Diagram {
            nodes,
            events: Vec::new(),
        }
    }

    /// A frame carried from `from` to `to` (or lost on the way).
    pub(super) fn frame(&mut self, from: NodeRid, to: NodeRid, bytes: &[u8], lost: bool) {
        self.events.push(Event::Frame {
            from: from.get(),
            to: to.get(),
            label: frame_label(bytes),
            lost,
        });
    }

    /// What node `at` decided.
    pub(super) fn decision(&mut self, at: NodeRid, action: &Inbound) {
        self.events.push(Event::Note {
            at: at.get(),
            text: decision_label(action),
        });
    }

    /// Node `at` ran its due timers.
    pub(super) fn timers(&mut self, at: NodeRid, now_ms: u64) {
        self.events.push(Event::Note {
            at: at.get(),
            text: format!("timers due at {now_ms} ms"),
        });
    }

    /// A note over every node (what the harness did next).
    pub fn note(&mut self, text: &str) {
        self.note_at(self.events.len(), text);
    }

    /// A note over every node placed before the event at `index` (what
    /// the harness did, once it knows what that was).
    pub fn note_at(&mut self, index: usize, text: &str) {
        let index = index.min(self.events.len());
        self.events.insert(index, Event::Span { text: clean(text) });
    }

    /// How many things it shows.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether it shows nothing.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The Mermaid sequence diagram.
    pub fn mermaid(&self) -> String {
        let mut t = String::from("sequenceDiagram\n");
        for n in 1..=self.nodes {
            let _ = writeln!(t, "    participant n{n} as node {n}");
        }
        for e in &self.events {
            let _ = match e {
                Event::Frame {
                    from,
                    to,
                    label,
                    lost: false,
                } => writeln!(t, "    n{from}->>n{to}: {label}"),
                Event::Frame {
                    from,
                    to,
                    label,
                    lost: true,
                } => writeln!(t, "    n{from}-xn{to}: {label} (lost)"),
                Event::Note { at, text } => writeln!(t, "    Note over n{at}: {text}"),
                Event::Span { text } if self.nodes > 1 => {
                    writeln!(t, "    Note over n1,n{}: {text}", self.nodes)
                }
                Event::Span { text } => writeln!(t, "    Note over n1: {text}"),
            };
        }
        t
    }

    /// The diagram drawn as SVG: a lifeline per node, an arrow per frame
    /// (dashed and crossed when lost), a box per note.
    pub fn svg(&self) -> String {
        const COLUMN: u64 = 220;
        const ROW: u64 = 26;
        const TOP: u64 = 50;
        let width = COLUMN * self.nodes.max(1) + 40;
        let height = TOP + ROW * (self.events.len() as u64 + 1) + 20;
        let x = |n: u64| 20 + COLUMN * (n - 1) + COLUMN / 2;
        let mut t = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <defs><marker id=\"arrow\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" refY=\"4\" \
             orient=\"auto\"><path d=\"M0,0 L10,4 L0,8 z\" fill=\"#333\"/></marker></defs>\n"
        );
        for n in 1..=self.nodes {
            let _ = writeln!(
                t,
                "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-weight=\"bold\">node {n}</text>\
                 <line x1=\"{0}\" y1=\"32\" x2=\"{0}\" y2=\"{}\" stroke=\"#999\"/>",
                x(n),
                height - 10
            );
        }
        for (i, e) in self.events.iter().enumerate() {
            let y = TOP + ROW * i as u64 + ROW / 2;
            let _ = match e {
                Event::Frame {
                    from,
                    to,
                    label,
                    lost,
                } => {
                    let (x1, x2) = (x(*from), x(*to));
                    let dash = if *lost {
                        " stroke-dasharray=\"4 3\""
                    } else {
                        ""
                    };
                    let mark = if *lost {
                        ""
                    } else {
                        " marker-end=\"url(#arrow)\""
                    };
                    let text = if *lost {
                        format!("{} (lost)", escape(label))
                    } else {
                        escape(label)
                    };
                    writeln!(
                        t,
                        "<line x1=\"{x1}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"#333\"{dash}{mark}/>\
                         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{text}</text>",
                        (x1 + x2) / 2,
                        y - 4
                    )
                }
                Event::Note { at, text } => writeln!(
                    t,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff5c0\" stroke=\"#c9b44c\"/>\
                     <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                    x(*at) - COLUMN / 2 + 8,
                    y - ROW / 2 + 3,
                    COLUMN - 16,
                    ROW - 6,
                    x(*at),
                    y + 4,
                    escape(text)
                ),
                Event::Span { text } => writeln!(
                    t,
                    "<rect x=\"16\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e3ecfa\" stroke=\"#7d9bd0\"/>\
                     <text x=\"24\" y=\"{}\">{}</text>",
                    y - ROW / 2 + 3,
                    width - 32,
                    ROW - 6,
                    y + 4,
                    escape(text)
                ),
            };
        }
        t.push_str("</svg>\n");
        t
    }

    /// A page that shows the SVG, with the Mermaid text beside it to copy.
    pub fn html(&self, title: &str) -> String {
        format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}</title></head>\n\
             <body style=\"margin:16px\">\n<h1 style=\"font-family:sans-serif;font-size:18px\">{0}</h1>\n\
             {1}<details><summary style=\"font-family:sans-serif\">Mermaid</summary><pre>{2}</pre></details>\n\
             </body></html>\n",
            escape(title),
            self.svg(),
            escape(&self.mermaid())
        )
    }
}

/// A frame's command and, for an operation, its object.
fn frame_label(bytes: &[u8]) -> String {
    let Ok(frame) = wire::decode(bytes, &super::faults::limits()) else {
        return "undecodable".to_owned();
    };
    let command = frame.command_name();
    match &frame {
        Frame::Message(op) | Frame::Request(op) => clean(&format!(
            "{command} {}/{}",
            op.target.kind().as_str(),
            op.target.id()
        )),
        _ => command.to_owned(),
    }
}

/// A decision's kind, and its event for a relocation or a Session.
fn decision_label(action: &Inbound) -> String {
    let debug = format!("{action:?}");
    let kind = head(&debug);
    let detail = match action {
        Inbound::Relocation(a) => format!(" {}", head(&format!("{:?}", a.event))),
        Inbound::Session(e) => format!(" {}", head(&format!("{e:?}"))),
        Inbound::Deliver(d) => format!(
            " {}/{}",
            d.operation.target.kind().as_str(),
            d.operation.target.id()
        ),
        Inbound::Send(frames) => format!(" {} frames", frames.len()),
        _ => String::new(),
    };
    clean(&format!("{kind}{detail}"))
}

/// The leading name of a `Debug` text (`Deliver(...)` → `Deliver`).
fn head(debug: &str) -> &str {
    let end = debug
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(debug.len());
    &debug[..end]
}

/// `text` with what Mermaid reads as syntax (`;`, `#`, `:` after the
/// first, line breaks) made plain.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ';' | '#' | '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_draws_frames_notes_and_steps_in_order() {
        let mut d = Diagram::new(2);
        d.note("step 1: send");
        d.events.push(Event::Frame {
            from: 1,
            to: 2,
            label: "Message actor/a".into(),
            lost: false,
        });
        d.events.push(Event::Note {
            at: 2,
            text: "Deliver actor/a".into(),
        });
        d.events.push(Event::Frame {
            from: 2,
            to: 1,
            label: "Reply".into(),
            lost: true,
        });
        assert_eq!(
            d.mermaid(),
            "sequenceDiagram\n    participant n1 as node 1\n    participant n2 as node 2\n    \
             Note over n1,n2: step 1: send\n    n1->>n2: Message actor/a\n    \
             Note over n2: Deliver actor/a\n    n2-xn1: Reply (lost)\n"
        );
        let svg = d.svg();
        assert!(svg.starts_with("<svg") && svg.contains("stroke-dasharray"));
        assert!(d.html("seed <1>").contains("seed &lt;1&gt;"));
    }

    #[test]
    fn mermaid_syntax_in_a_label_is_made_plain() {
        assert_eq!(clean("a;b#c\nd"), "a b c d");
        assert_eq!(head("Deliver(Delivery { x })"), "Deliver");
    }
}
