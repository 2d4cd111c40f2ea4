// Byte buffer with the primitive writers of the Tile IR bytecode format
// (NVIDIA's CUDA Tile IR bytecode, as NVIDIA/cuda-tile's lib/Bytecode writes it): unsigned
// LEB128 varints, zigzag signed varints, fixed-width
// little-endian integers and 0xCB alignment padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tt {
namespace bytecode {

/// Padding byte used by every writer (the source comments say 0xCF; the code writes 0xCB).
constexpr uint8_t kPaddingByte = 0xCB;

class ByteBuffer {
public:
  ByteBuffer() = default;

  void u8(uint8_t v) { bytes_.push_back(v); }
  void u16(uint16_t v) { fixed(v, 2); }
  void u32(uint32_t v) { fixed(v, 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void i32(int32_t v) { fixed(static_cast<uint32_t>(v), 4); }
  void i64(int64_t v) { fixed(static_cast<uint64_t>(v), 8); }

  /// Unsigned LEB128: seven bits per byte, least significant group first.
  void varint(uint64_t v) {
    do {
      uint8_t b = v & 0x7F;
      v >>= 7;
      if (v)
        b |= 0x80;
      bytes_.push_back(b);
    } while (v);
  }
  /// Zigzag then varint: (v << 1) ^ (v >> 63).
  void svarint(int64_t v) {
    varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

  void bytes(const uint8_t *p, size_t n) { bytes_.insert(bytes_.end(), p, p + n); }
  void bytes(const std::vector<uint8_t> &v) { bytes_.insert(bytes_.end(), v.begin(), v.end()); }
  void bytes(const ByteBuffer &b) { bytes(b.data()); }
  void str(const std::string &s) { bytes(reinterpret_cast<const uint8_t *>(s.data()), s.size()); }

  /// Pads with 0xCB until (base + size()) is a multiple of `alignment`. `base` is the absolute
  /// offset at which this buffer starts (0 for offsets relative to the buffer itself).
  void align(size_t alignment, size_t base = 0) {
    if (alignment <= 1)
      return;
    while ((base + bytes_.size()) % alignment)
      bytes_.push_back(kPaddingByte);
  }

  size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  const std::vector<uint8_t> &data() const { return bytes_; }
  std::vector<uint8_t> take() { return std::move(bytes_); }
  void clear() { bytes_.clear(); }

private:
  void fixed(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> bytes_;
};

/// Standalone helpers for code that builds small byte strings (types, attributes).
inline void appendVarint(std::vector<uint8_t> &out, uint64_t v) {
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    if (v)
      b |= 0x80;
    out.push_back(b);
  } while (v);
}
inline void appendSVarint(std::vector<uint8_t> &out, int64_t v) {
  appendVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
inline void appendFixed(std::vector<uint8_t> &out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

} // namespace bytecode
} // namespace tt
