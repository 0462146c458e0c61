// Output files written whole or not at all: a temporary file beside the target, fsync'ed, renamed over it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <atomic>

#include "hfcore/errors.hpp"
#include "hfcore/executor.hpp"
#include "run/fd_write.hpp"

namespace hf::run {

namespace {

std::string temp_name(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

[[noreturn]] void fail(const std::string& path, int err) {
    throw InputError(path, "", std::string("cannot write: ") + std::strerror(err));
}

}  // namespace

void check_writable(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path, EISDIR);
    // The rename needs a file we can create in the same folder.
    const std::string tmp = temp_name(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0) fail(path, errno);
}

void write_file_atomic(const std::string& path, const std::string& text) {
    const std::string tmp = temp_name(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, errno);
    if (const int err = detail::write_fully(fd, text)) {
        ::close(fd);
        ::unlink(tmp.c_str());
        fail(path, err);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        fail(path, err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        fail(path, err);
    }
    // The rename itself is durable once the folder is synced.
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

}  // namespace hf::run
