//! Byte spans into one source file, and their conversion to line/column.

use serde::Serialize;

/// A half-open byte range `[start, end)` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub start: u32,
    pub(crate) end: u32,
}

impl Span {
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both.
    pub(crate) fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// Bytes that are not UTF-8 text: where the first bad byte is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotUtf8 {
    /// Byte offset of the first byte that does not start a valid UTF-8 sequence.
    pub(crate) offset: usize,
    /// 1-based line and column (in characters) of that byte.
    pub(crate) line: usize,
    pub(crate) col: usize,
    pub(crate) byte: u8,
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not valid UTF-8 (byte 0x{:02X} at line {}, column {})", self.byte, self.line, self.col)
    }
}

/// `bytes` as text; otherwise where it first stops being UTF-8, with the text in which each
/// bad sequence is replaced by U+FFFD (identical up to the first bad byte, so the location
/// holds in it too).
pub(crate) fn decode_utf8(bytes: Vec<u8>) -> Result<String, (NotUtf8, String)> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let valid = std::str::from_utf8(&bytes[..offset]).unwrap_or_default();
        let line_start = valid.rfind('\n').map_or(0, |i| i + 1);
        let bad = NotUtf8 {
            offset,
            line: valid.bytes().filter(|&b| b == b'\n').count() + 1,
            col: valid[line_start..].chars().count() + 1,
            byte: bytes[offset],
        };
        (bad, String::from_utf8_lossy(bytes).into_owned())
    })
}

/// A source file: its name (as given by the user) and text, with a line index.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub(crate) text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        SourceFile { name: name.into(), text, line_starts }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn line_col(&self, offset: u32) -> (usize, usize) {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// The text of a 1-based line, without its line break.
    pub(crate) fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self.line_starts.get(line).copied().unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bad_byte_is_located_in_characters() {
        // Line 2 holds `é` (two bytes, one character) before the bad byte: column 3.
        let (bad, replaced) = decode_utf8(b"ok\n\xc3\xa9x\xffy\xfe\n".to_vec()).unwrap_err();
        assert_eq!(bad, NotUtf8 { offset: 6, line: 2, col: 3, byte: 0xFF });
        assert_eq!(replaced, "ok\néx\u{FFFD}y\u{FFFD}\n");
        let file = SourceFile::new("f", replaced);
        assert_eq!(file.line_col(bad.offset as u32), (2, 3));
        // A sequence cut short is bad from its first byte.
        assert_eq!(decode_utf8(b"\xe2\x82".to_vec()).unwrap_err().0.offset, 0);
        assert_eq!(decode_utf8(b"plain".to_vec()).unwrap(), "plain");
    }
}
