//! Encoding and strict decoding of the relocation frames (commands 45–49),
//! in the layout `docs/wire.md` gives. A Restore ends with the CRC-32C of
//! every body byte before it; a mismatch refuses the whole frame.

use super::checksum::crc32c;
use super::codec::{Reader, Writer, invalid};
use super::relocation::*;
use super::{Operation, WireError};
use crate::ids::{ObjectGeneration, RelocationId};

impl Writer {
    fn identity(&mut self, id: &RelocationIdentity) {
        self.u64(id.relocation.get());
        self.key(&id.key);
        self.u64(id.object_generation.get());
    }

    fn count(&mut self, n: usize) {
        self.bytes_mut()
            .extend_from_slice(&super::codec::len_u32(n).to_be_bytes());
    }

    pub(super) fn relocation_frame(&mut self, f: &RelocationFrame) {
        match f {
            RelocationFrame::Restore(r) => {
                let start = self.bytes_mut().len();
                self.identity(&r.identity);
                self.node(&r.source);
                self.node(&r.target);
                self.fence(&r.from);
                self.count(r.saved.len());
                for op in &r.saved {
                    self.u8(u8::from(op.reply_route.is_some()));
                    self.operation(op);
                }
                self.count(r.registrations.len());
                for reg in &r.registrations {
                    self.session(&reg.session);
                    self.binding(&reg.binding);
                }
                self.payload(&r.state);
                let sum = crc32c(&self.bytes_mut()[start..]);
                self.bytes_mut().extend_from_slice(&sum.to_be_bytes());
            }
            RelocationFrame::RelayReady {
                identity,
                target,
                destination,
            }
            | RelocationFrame::Committed {
                identity,
                target,
                destination,
            } => {
                self.identity(identity);
                self.node(target);
                self.fence(destination);
            }
            RelocationFrame::Cutover {
                identity,
                source,
                relayed,
            } => {
                self.identity(identity);
                self.node(source);
                self.u64(*relayed);
            }
            RelocationFrame::Abort {
                identity,
                by,
                reason,
            } => {
                self.identity(identity);
                self.node(by);
                self.u8(*reason as u8);
            }
        }
    }
}

impl Reader<'_> {
    fn identity(&mut self) -> Result<RelocationIdentity, WireError> {
        Ok(RelocationIdentity {
            relocation: RelocationId(self.u64("relocation id")?),
            key: self.key()?,
            object_generation: ObjectGeneration(self.u64("object generation")?),
        })
    }

    fn count(&mut self, field: &'static str, max: usize) -> Result<usize, WireError> {
        let n = self.u32(field)? as usize;
        if n > max {
            return Err(WireError::TooLong { field, len: n, max });
        }
        Ok(n)
    }

    fn saved_operation(&mut self) -> Result<Operation, WireError> {
        match self.u8("saved operation kind")? {
            0 => self.operation(false),
            1 => self.operation(true),
            other => Err(invalid(
                "saved operation kind",
                format!("{other} is neither 0 (message) nor 1 (request)"),
            )),
        }
    }

    fn restore(&mut self) -> Result<Restore, WireError> {
        let body = self.remaining();
        let identity = self.identity()?;
        let (source, target, from) = (self.node()?, self.node()?, self.fence()?);
        let n = self.count("saved operations", MAX_SAVED_OPERATIONS)?;
        let saved = (0..n)
            .map(|_| self.saved_operation())
            .collect::<Result<Vec<_>, _>>()?;
        for op in &saved {
            if op.target != identity.key {
                return Err(invalid("saved operation", "for another object"));
            }
        }
        let n = self.count("registrations", MAX_RESTORE_REGISTRATIONS)?;
        let registrations = (0..n)
            .map(|_| {
                Ok(Registration {
                    session: self.session()?,
                    binding: self.binding()?,
                })
            })
            .collect::<Result<Vec<_>, WireError>>()?;
        let state = self.state()?;
        let covered = body.len() - self.remaining().len();
        let declared = self.u32("restore checksum")?;
        if crc32c(&body[..covered]) != declared {
            return Err(invalid("restore checksum", "does not match the body"));
        }
        Ok(Restore {
            identity,
            source,
            target,
            from,
            saved,
            registrations,
            state,
        })
    }

    /// Decodes the body of relocation command `command`.
    pub(super) fn relocation_frame(&mut self, command: u8) -> Result<RelocationFrame, WireError> {
        Ok(match command {
            45 => RelocationFrame::Restore(Box::new(self.restore()?)),
            46 => RelocationFrame::RelayReady {
                identity: self.identity()?,
                target: self.node()?,
                destination: self.fence()?,
            },
            47 => RelocationFrame::Cutover {
                identity: self.identity()?,
                source: self.node()?,
                relayed: self.u64("relayed")?,
            },
            48 => RelocationFrame::Committed {
                identity: self.identity()?,
                target: self.node()?,
                destination: self.fence()?,
            },
            49 => RelocationFrame::Abort {
                identity: self.identity()?,
                by: self.node()?,
                reason: {
                    let code = self.u8("abort reason")?;
                    AbortReason::from_code(code)
                        .ok_or_else(|| invalid("abort reason", format!("{code} is not 1..=5")))?
                },
            },
            other => return Err(WireError::UnknownCommand(other)),
        })
    }
}
