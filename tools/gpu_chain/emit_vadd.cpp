// Writes the vector-add kernels of vadd_kernels.h as Tile IR bytecode files and prints their
// decoded listing.
//
//   tools/gpu_chain/build_chain.sh builds it (g++ -std=c++17, this file plus
//   csrc/bytecode/{writer,reader,op_specs}.cpp) into build/gpu_chain/emit_vadd.
//   build/gpu_chain/emit_vadd OUT_DIR [13.3|13.4] [tile]
//
// Produces OUT_DIR/vadd_view.tilebc and OUT_DIR/vadd_ptr.tilebc (suffix _t<tile> when a tile
// size other than 1024 is given).
#include "bytecode/reader.h"
#include "vadd_kernels.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

using namespace tt::bytecode;

static void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  if (!f)
    throw BytecodeError("cannot write " + path);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [13.3|13.4] [tile]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  Version v = kDefaultVersion;
  if (argc > 2) {
    std::string s = argv[2];
    if (s == "13.3")
      v = kV13_3;
    else if (s == "13.4")
      v = kV13_4;
    else {
      std::fprintf(stderr, "unsupported version %s\n", s.c_str());
      return 2;
    }
  }
  const int64_t tile = argc > 3 ? std::atoll(argv[3]) : 1024;
  try {
    const std::string suffix = tile == 1024 ? "" : "_t" + std::to_string(tile);
    struct K {
      std::string name;
      std::vector<uint8_t> bytes;
    } kernels[] = {{"vadd_view" + suffix, tt::bytecode::gpu_chain::buildVaddView(v, tile)},
                   {"vadd_ptr" + suffix, tt::bytecode::gpu_chain::buildVaddPtr(v, tile)}};
    for (const K &k : kernels) {
      const std::string path = out + "/" + k.name + ".tilebc";
      writeFile(path, k.bytes);
      DecodedModule d = readModule(k.bytes);
      if (reencode(d) != k.bytes)
        throw BytecodeError(k.name + ": re-encoding differs");
      std::cout << "# " << path << " (" << k.bytes.size() << " bytes)\n" << d.dump() << "\n";
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
