// OpenRegularFile: open a file for reading only if it is a regular file, without ever blocking
// in open() (issue 34: a FIFO given as a model, a config or a plan waited forever for a writer).
// Host-only (tools layer).
#ifndef ATTNRT_TOOLS_HOST_REGULAR_FILE_H_
#define ATTNRT_TOOLS_HOST_REGULAR_FILE_H_

#include <sys/stat.h>

#include <cstdio>
#include <string>

namespace attnrt {

// Opens `path` read-only with O_NONBLOCK (so a FIFO without a writer cannot make open() wait),
// fstat()s the descriptor, refuses anything but a regular file, then restores blocking reads.
// Returns the descriptor (close-on-exec) and fills *st; on failure returns -1, sets *err to an
// errno value and *what to what failed ("cannot open", "is a directory, not a regular file",
// "is a FIFO (named pipe), not a regular file", ...), for the caller to word with the path.
int OpenRegularFile(const std::string& path, struct stat* st, int* err, std::string* what);

// OpenRegularFile as a stdio stream ("rb"); null on failure, with *err and *what as there.
std::FILE* OpenRegularStream(const std::string& path, int* err, std::string* what);

// Reads the whole regular file at `path` into *text, refusing one larger than `max_bytes`
// (reading stops there, so a huge file or a device is never read to its end). Errors start
// with the path and say what `kind` of file was expected ("a JSON config file", ...).
bool ReadRegularFileText(const std::string& path, size_t max_bytes, const char* kind,
                         std::string* text, std::string* error);

}  // namespace attnrt

#endif  // ATTNRT_TOOLS_HOST_REGULAR_FILE_H_
