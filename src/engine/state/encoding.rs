//! Packing states into 1, 2 or 4 bytes per slot, the hash of packed bytes, and back.

use super::*;

/// Hash of a packed state (64-bit multiply-rotate over 8-byte words, then a murmur3
/// finaliser, so that both the high bits (shard) and the low bits (slot) are good).
#[inline]
pub fn hash_bytes(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        h = (h ^ w).wrapping_mul(K).rotate_left(31);
    }
    let r = chunks.remainder();
    if !r.is_empty() {
        // The remainder as a little-endian word padded with zeros. From states of 8 bytes
        // or more, it is read as the top bytes of the last 8 (one load, overlapping the last
        // full word): copying it into a buffer costs a `memcpy` call and a stalled reload.
        let w = if b.len() >= 8 {
            u64::from_le_bytes(b[b.len() - 8..].try_into().unwrap()) >> (8 * (8 - r.len()))
        } else {
            load_le(r)
        };
        h = (h ^ w).wrapping_mul(K).rotate_left(31);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The little-endian word of the (at most 8) bytes `b`, zero-padded, without a `memcpy` call
/// (loads of 4, 2 and 1 bytes; the branches follow the state size, the same all run long).
#[inline(always)]
pub(super) fn load_le(b: &[u8]) -> u64 {
    if let Ok(w) = <[u8; 8]>::try_from(b) {
        return u64::from_le_bytes(w);
    }
    let (mut x, mut k) = (0u64, 0usize);
    if b.len() & 4 != 0 {
        x = u64::from(u32::from_le_bytes(b[..4].try_into().unwrap()));
        k = 4;
    }
    if b.len() & 2 != 0 {
        x |= u64::from(u16::from_le_bytes(b[k..k + 2].try_into().unwrap())) << (8 * k);
        k += 2;
    }
    if b.len() & 1 != 0 {
        x |= u64::from(b[k]) << (8 * k);
    }
    x
}

/// Writes the low `out.len()` (at most 8) bytes of `x` into `out`, little-endian, as
/// `load_le` reads them.
#[inline(always)]
pub(super) fn store_le(out: &mut [u8], x: u64) {
    if let Ok(w) = <&mut [u8; 8]>::try_from(&mut *out) {
        *w = x.to_le_bytes();
        return;
    }
    let mut k = 0usize;
    if out.len() & 4 != 0 {
        out[..4].copy_from_slice(&(x as u32).to_le_bytes());
        k = 4;
    }
    if out.len() & 2 != 0 {
        out[k..k + 2].copy_from_slice(&((x >> (8 * k)) as u16).to_le_bytes());
        k += 2;
    }
    if out.len() & 1 != 0 {
        out[k] = (x >> (8 * k)) as u8;
    }
}

/// Bytes per slot needed to store `v` (⊥ is the most negative code of each width).
#[inline]
pub fn width_of(v: i32) -> usize {
    if v == BOT || (-127..=127).contains(&v) {
        1
    } else if (-32767..=32767).contains(&v) {
        2
    } else {
        4
    }
}

/// Bytes per slot needed for state `s`.
pub fn width_needed(s: &[i32]) -> usize {
    s.iter().map(|&v| width_of(v)).max().unwrap_or(1)
}

/// Encodes `s` into `out` (`out.len() == s.len() * width`); false (and `out` unspecified) when
/// some value does not fit `width`.
#[inline]
pub fn encode_into(s: &[i32], width: usize, out: &mut [u8]) -> bool {
    // Branch-free loops (vectorised): `bad` collects values that do not fit.
    match width {
        1 => {
            // Fits iff -127 <= v <= 127 (or ⊥): v + 127 <= 254.
            // (SSE2-friendly: no unsigned max.)
            let (mut hi, mut top) = (0u32, 0u32);
            for &v in s {
                let t = (if v == BOT { 0 } else { v }).wrapping_add(127) as u32;
                hi |= t & !0xFF;
                top |= u32::from(t == 255);
            }
            // ⊥ = 0x8000_0000 encodes as 0x80: the sign bit of byte 3 is or-ed into bit 7
            // (a no-op for the other values that fit, whose bit 7 is already their sign).
            for (o, &v) in out[..s.len()].iter_mut().zip(s) {
                *o = (v as u8) | (((v >> 24) as u8) & 0x80);
            }
            hi == 0 && top == 0
        }
        2 => {
            let mut bad = 0u32;
            for (o, &v) in out.chunks_exact_mut(2).zip(s) {
                let bot = v == BOT;
                bad |= (!bot & ((v.wrapping_add(32767) as u32) > 65534)) as u32;
                let x = if bot { i16::MIN } else { v as i16 };
                o.copy_from_slice(&x.to_le_bytes());
            }
            bad == 0
        }
        _ => {
            for (o, &v) in out.chunks_exact_mut(4).zip(s) {
                o.copy_from_slice(&v.to_le_bytes());
            }
            true
        }
    }
}

/// Writes `v` into slot `p` of a state packed with `W` bytes per slot, as `encode_into` would;
/// false (and nothing written) when `v` does not fit `W` bytes.
#[inline(always)]
pub fn encode_slot<const W: usize>(out: &mut [u8], p: usize, v: i32) -> bool {
    match W {
        1 => {
            let x = if v == BOT {
                i8::MIN
            } else if (-127..=127).contains(&v) {
                v as i8
            } else {
                return false;
            };
            out[p] = x as u8;
        }
        2 => {
            let x = if v == BOT {
                i16::MIN
            } else if (-32767..=32767).contains(&v) {
                v as i16
            } else {
                return false;
            };
            out[2 * p..2 * p + 2].copy_from_slice(&x.to_le_bytes());
        }
        _ => out[4 * p..4 * p + 4].copy_from_slice(&v.to_le_bytes()),
    }
    true
}

#[inline]
pub(super) fn decode(b: &[u8], width: usize, out: &mut Vec<i32>) {
    out.clear();
    match width {
        1 => out.extend(b.iter().map(|&x| if x as i8 == i8::MIN { BOT } else { x as i8 as i32 })),
        2 => out.extend(b.chunks_exact(2).map(|c| {
            let x = i16::from_le_bytes([c[0], c[1]]);
            if x == i16::MIN { BOT } else { x as i32 }
        })),
        _ => out.extend(b.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
    }
}
