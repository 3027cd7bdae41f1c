//! The Aldebaran (`.aut`) reader: `des (initial, transitions, states)` then one
//! `(from, "label", to)` per line. Linear time, checked header, no recursion.

use super::lts::Lts;

/// A malformed `.aut` file: the 1-based line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AutError {
    pub line: usize,
    pub(crate) message: String,
}

fn err(line: usize, message: impl Into<String>) -> AutError {
    AutError { line, message: message.into() }
}

/// Reads an `.aut` file given as bytes (invalid UTF-8 is an error, located by line).
pub fn read_aut_bytes(bytes: &[u8]) -> Result<Lts, AutError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => read_aut(text),
        Err(e) => {
            let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(err(line, "invalid UTF-8"))
        }
    }
}

/// The most states an `.aut` header may declare beyond those its transitions can reach.
const MAX_ISOLATED_STATES: u64 = 1 << 20;

/// Reads an `.aut` file: the header must be `des (I, T, N)` with `I < N`, every state below
/// `N`, and exactly `T` transitions.
pub fn read_aut(text: &str) -> Result<Lts, AutError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
    let (hline, header) =
        lines.next().ok_or_else(|| err(1, "empty file: expected `des (initial, transitions, states)`"))?;
    let [initial, n_trans, n_states] = header_numbers(header).ok_or_else(|| {
        err(hline, format!("expected `des (initial, transitions, states)`, found `{}`", excerpt(header)))
    })?;
    if n_states == 0 || n_states > u32::MAX as u64 {
        return Err(err(hline, format!("the number of states must be between 1 and {}", u32::MAX)));
    }
    if initial >= n_states {
        return Err(err(hline, format!("initial state {initial} is not below the number of states {n_states}")));
    }
    // Every state but the initial one is reached by a transition, except isolated ones: a
    // header may announce a few of those, not billions (each costs memory before any line).
    if n_states > n_trans.saturating_add(1).saturating_add(MAX_ISOLATED_STATES) {
        return Err(err(
            hline,
            format!(
                "the header declares {n_states} states for {n_trans} transitions: more than {MAX_ISOLATED_STATES} \
                 states that no transition reaches"
            ),
        ));
    }
    let mut lts = Lts::new();
    lts.initial = initial as u32;
    lts.nstates = n_states as usize;
    let mut count: u64 = 0;
    for (n, line) in lines {
        let (from, label, to) = transition(line)
            .ok_or_else(|| err(n, format!("expected `(from, \"label\", to)`, found `{}`", excerpt(line))))?;
        for s in [from, to] {
            if s >= n_states {
                return Err(err(n, format!("state {s} is not below the number of states {n_states}")));
            }
        }
        count += 1;
        if count > n_trans {
            return Err(err(n, format!("more transitions than the {n_trans} the header declares")));
        }
        lts.add(from as u32, label, to as u32);
    }
    if count != n_trans {
        return Err(err(hline, format!("the header declares {n_trans} transitions, the file has {count}")));
    }
    Ok(lts)
}

fn excerpt(line: &str) -> String {
    let mut s: String = line.chars().take(60).collect();
    if s.len() < line.len() {
        s.push_str("...");
    }
    s
}

fn header_numbers(line: &str) -> Option<[u64; 3]> {
    let inner = line.strip_prefix("des")?.trim_start().strip_prefix('(')?.strip_suffix(')')?;
    let mut it = inner.split(',').map(|x| x.trim().parse::<u64>().ok());
    let v = [it.next()??, it.next()??, it.next()??];
    it.next().is_none().then_some(v)
}

/// `(from, "label", to)` or `(from, label, to)`; a quoted label may contain commas.
fn transition(line: &str) -> Option<(u64, &str, u64)> {
    let inner = line.strip_prefix('(')?.strip_suffix(')')?;
    let (from, rest) = inner.split_once(',')?;
    let (label, to) = rest.rsplit_once(',')?;
    let label = label.trim();
    let label = if let Some(q) = label.strip_prefix('"') { q.strip_suffix('"')? } else { label };
    if label.is_empty() {
        return None;
    }
    Some((from.trim().parse().ok()?, label, to.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_and_bare_labels() {
        let lts = read_aut("des (1, 3, 3)\n(1, \"A !1, 2\", 0)\n(0, i, 2)\n(1, \"A !1, 2\", 2)\n").unwrap();
        assert_eq!(lts.initial, 1);
        assert_eq!(lts.labels, ["A !1, 2", "i"]);
        assert_eq!(lts.adjacency(), vec![vec![(1, 2)], vec![(0, 0), (0, 2)], vec![]]);
    }

    #[test]
    fn rejects_bad_headers_and_counts() {
        assert_eq!(read_aut("").unwrap_err().line, 1);
        assert!(read_aut("des (3, 0, 3)\n").unwrap_err().message.contains("initial state 3"));
        assert!(read_aut("des (0, 2, 2)\n(0, A, 1)\n").unwrap_err().message.contains("declares 2"));
        assert_eq!(read_aut("des (0, 1, 2)\n(0, A, 1)\n(1, A, 0)\n").unwrap_err().line, 3);
        assert_eq!(read_aut("des (0, 1, 2)\n(0, A, 2)\n").unwrap_err().line, 2);
        assert_eq!(read_aut("des (0, 1, 2)\n0, A, 1\n").unwrap_err().line, 2);
        assert_eq!(read_aut_bytes(b"des (0, 0, 1)\n\xff").unwrap_err().message, "invalid UTF-8");
        // A 22-byte header must not make the reader allocate billions of states.
        assert!(read_aut("des (0, 0, 4000000000)\n").unwrap_err().message.contains("no transition reaches"));
    }
}
