#pragma once
// The generated source of a build, read back from CUPAR_JIT_DUMP_DIR: for tests that check what
// the code generator writes (the shape of a batched form, a chunk size).

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace cupar::testing {

/// Runs `build` (a compile-only build, e.g. cupar::jit::compile_sort) with CUPAR_JIT_DUMP_DIR set
/// to a directory of its own, and returns the dumped source (.cu) that contains `marker` (e.g.
/// the operator's text, which the caller makes new to the process), or "" if none does. The
/// variable is unset and the directory removed afterwards. Throws std::runtime_error if the
/// directory cannot be made.
template <class Build>
std::string dumped_source(const std::string& marker, Build&& build) {
  namespace fs = std::filesystem;
  static int calls = 0;
  const fs::path dir = fs::temp_directory_path() /
                       ("cupar_dump_" + std::to_string(::getpid()) + "_" + std::to_string(++calls));
  fs::remove_all(dir);
  if (!fs::create_directories(dir) || setenv("CUPAR_JIT_DUMP_DIR", dir.c_str(), 1) != 0) {
    throw std::runtime_error("dumped_source: cannot use " + dir.string());
  }
  std::string text;
  try {
    build();
  } catch (...) {
    unsetenv("CUPAR_JIT_DUMP_DIR");
    fs::remove_all(dir);
    throw;
  }
  unsetenv("CUPAR_JIT_DUMP_DIR");
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".cu") continue;
    std::ifstream in(entry.path());
    const std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (t.find(marker) != std::string::npos) text = t;
  }
  fs::remove_all(dir);
  return text;
}

}  // namespace cupar::testing
