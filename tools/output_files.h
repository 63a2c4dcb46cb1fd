// The files a command writes: two flags naming one file (by real path, so "./net.pbtxt", a
// symlink and "dir/../net.pbtxt" compare equal) are refused before any work, since one write
// would silently replace the other, or an output would replace an input the command read.
#ifndef PARITY_TOOLS_OUTPUT_FILES_H_
#define PARITY_TOOLS_OUTPUT_FILES_H_

#include <string>
#include <utility>
#include <vector>

namespace parity::tools {

// Where `path` really lands: the real path of the file, or of its folder plus its name for a file
// not yet there; `path` itself when neither resolves.
std::string RealTarget(const std::string& path);

// Throws parity::Error (kBadArgument) naming both flags when an output names the same file as
// another output or as an input. Each entry is (flag, path); empty paths are skipped.
void RefuseSharedFiles(const std::vector<std::pair<std::string, std::string>>& outputs,
                       const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace parity::tools

#endif  // PARITY_TOOLS_OUTPUT_FILES_H_
