//! What the solver reads: the [`Input`] trait, which can say "not yet",
//! and the inputs read ahead on a thread of their own.

use std::sync::mpsc;

use super::inputs::entries;
use super::Entry;
use crate::error::Error;
use crate::grid::Variant;

/// What a source of entries has next.
pub enum Next {
    Entry(Result<Entry, Error>),
    /// Nothing yet: more may come, and asking again later may find it.
    NotYet,
    End,
}

/// A source of entries that can say "not yet" instead of waiting, so the
/// solver anneals what it holds while a slow producer writes the next
/// puzzle. Every iterator of entries is one that always waits.
pub trait Input {
    /// The next entry; with `wait` false, [`Next::NotYet`] rather than waiting for it.
    fn next_entry(&mut self, wait: bool) -> Next;
}

impl<I: Iterator<Item = Result<Entry, Error>>> Input for I {
    fn next_entry(&mut self, _wait: bool) -> Next {
        self.next().map_or(Next::End, Next::Entry)
    }
}

/// The entries of command-line inputs, read on a thread of their own: a
/// pipe that has written one puzzle and waits for its answer gets it.
pub struct ReadAhead {
    chunks: mpsc::Receiver<Vec<Result<Entry, Error>>>,
    chunk: std::vec::IntoIter<Result<Entry, Error>>,
}

/// Entries travel in chunks of up to this many, each handed over once it is
/// full or the next entry needs a read that may wait: one hand-over per
/// chunk, not per entry, keeps two threads on one core from taking turns
/// per puzzle.
const CHUNK: usize = 256;
/// Chunks read ahead of the solver: enough to fill any batch, few enough to
/// keep memory flat.
const CHUNKS_AHEAD: usize = 16;

impl ReadAhead {
    pub fn spawn(inputs: Vec<String>, variant: Variant) -> ReadAhead {
        let (sender, receiver) = mpsc::sync_channel(CHUNKS_AHEAD);
        // Detached: a read blocked on a terminal must not hold up the end of a run.
        std::thread::spawn(move || {
            let mut entries = entries(&inputs, variant);
            let mut chunk = Vec::with_capacity(CHUNK);
            while let Some(entry) = entries.next() {
                chunk.push(entry);
                if chunk.len() == CHUNK || entries.needs_a_read() {
                    let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                    if sender.send(full).is_err() {
                        return;
                    }
                }
            }
            // The sender dropped after the last chunk ends the stream.
            drop(sender.send(chunk));
        });
        ReadAhead { chunks: receiver, chunk: Vec::new().into_iter() }
    }
}

impl Input for ReadAhead {
    fn next_entry(&mut self, wait: bool) -> Next {
        loop {
            if let Some(entry) = self.chunk.next() {
                return Next::Entry(entry);
            }
            let chunk = match wait {
                true => self.chunks.recv().map_err(|_| mpsc::TryRecvError::Disconnected),
                false => self.chunks.try_recv(),
            };
            match chunk {
                Ok(chunk) => self.chunk = chunk.into_iter(),
                Err(mpsc::TryRecvError::Empty) => return Next::NotYet,
                Err(mpsc::TryRecvError::Disconnected) => return Next::End,
            }
        }
    }
}
