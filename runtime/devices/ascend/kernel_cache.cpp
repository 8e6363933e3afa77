#include "runtime/devices/ascend/kernel_cache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc::ascend {

namespace fs = std::filesystem;

std::string hash_hex(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string kernel_cache_dir(const std::string& sub) {
  fs::path root;
  if (const char* d = std::getenv("ASC_ASCEND_CACHE"))
    root = d;
  else if (const char* h = std::getenv("HOME"))
    root = fs::path(h) / ".cache/asc/ascend";
  else
    root = fs::temp_directory_path() / "asc-ascend";
  const fs::path dir = sub.empty() ? root : root / sub;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(cat("ascend: cannot create the kernel cache '", dir.string(), "'"));
  return dir.string();
}

std::string compile_cached(
    const std::string& dir, const std::string& key, const std::string& ext,
    const std::string& source, const std::string& what,
    const std::function<std::string(const std::string& src, const std::string& out)>& compile) {
  const fs::path d = dir, src = d / (key + ".cpp"), out = d / (key + ext);
  if (fs::exists(out)) return out.string();
  // The source under a name of its own too: another process may be writing <key>.cpp.
  const std::string tag = cat(".", getpid(), ".", std::hash<std::string>{}(what) % 100000);
  const fs::path tmp_src = d / cat(key, tag, ".cpp"), tmp = d / cat(key, tag, ".tmp", ext),
                 log = d / (key + ".log");
  {
    std::ofstream f(tmp_src, std::ios::trunc);
    f << source;
    if (!f.flush()) throw Error(cat("ascend: cannot write '", tmp_src.string(), "'"));
  }
  const std::string cmd =
      cat(compile(tmp_src.string(), tmp.string()), " > '", log.string(), "' 2>&1");
  const int rc = std::system(cmd.c_str());
  std::error_code ec;
  if (rc != 0) {
    fs::rename(tmp_src, src, ec);
    std::ifstream l(log);
    std::stringstream text;
    text << l.rdbuf();
    std::string head = text.str().substr(0, 2000);
    throw Error(cat("ascend: compiling the ", what, " kernel failed (source '", src.string(),
                    "', log '", log.string(), "'):\n", head));
  }
  fs::rename(tmp_src, src, ec);
  fs::rename(tmp, out);
  return out.string();
}

}  // namespace asc::ascend
