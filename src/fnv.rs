//! 64-bit FNV-1a, the one hash of holi's fingerprints (SARIF results, shards' runs,
//! the language server's page names): it stays the same across platforms and Rust
//! versions, as a fingerprint written to a file must.

/// A hash fed bytes in order.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Fnv64 {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Fnv64 {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    pub fn value(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(Fnv64::default().value(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv64::default().bytes(b"a").value(), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            Fnv64::default().bytes(b"foo").value(),
            Fnv64::default().bytes(b"f").bytes(b"oo").value()
        );
    }
}
