// Writing a whole buffer to a file descriptor, retrying short writes and EINTR.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>

namespace hf::run::detail {

// 0 when all of `text` was written, else the errno of the failure.
inline int write_fully(int fd, const std::string& text) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace hf::run::detail
