// The journal of a long run: JSON Lines, one finished unit per line, each line flushed and fsync'ed before
// the unit counts as done, so a killed process loses at most the line it was writing.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hfcore/errors.hpp"
#include "hfcore/executor.hpp"
#include "run/fd_write.hpp"

namespace hf::run {

namespace {

void append_line(int fd, const std::string& path, std::string line) {
    line += '\n';
    if (const int err = detail::write_fully(fd, line))
        throw InputError(path, "", std::string("cannot write the journal: ") + std::strerror(err));
    if (::fdatasync(fd) != 0)
        throw InputError(path, "", std::string("cannot sync the journal: ") + std::strerror(errno));
}

json::Value header(const std::string& command, const std::string& digest) {
    json::Object h;
    h.set("hfcore_journal", json::Value(std::int64_t{1}));
    h.set("command", json::Value(command));
    h.set("digest", json::Value(digest));
    return json::Value(std::move(h));
}

}  // namespace

std::unique_ptr<Journal> Journal::open(const std::string& path, const std::string& command,
                                       const std::string& digest, bool resume) {
    auto j = std::unique_ptr<Journal>(new Journal());
    j->path_ = path;
    std::ifstream in(path, std::ios::binary);
    const bool exists = static_cast<bool>(in);
    if (exists && !resume)
        throw InputError(path, "",
                         "a journal of an unfinished run is here: rerun with --resume to continue it, or remove it");
    std::size_t keep_bytes = 0;  // the intact prefix of the file
    if (exists) {
        std::string line;
        std::size_t offset = 0, line_no = 0;
        while (std::getline(in, line)) {
            const bool complete = !in.eof();  // a last line without '\n' was torn by a kill
            ++line_no;
            if (!complete) break;
            if (line_no == 1) {
                json::Value h;
                try {
                    h = json::parse(line, path);
                } catch (const Error&) {
                    throw InputError(path, "", "not an hfcore journal (unreadable first line)");
                }
                const json::Value* c = h.find("command");
                const json::Value* d = h.find("digest");
                if (!h.find("hfcore_journal") || !c || !d || !c->is_string() || !d->is_string())
                    throw InputError(path, "", "not an hfcore journal");
                if (c->as_string() != command)
                    throw InputError(path, "command",
                                     "the journal is of `hfcore " + c->as_string() + "`, not `hfcore " + command + "`");
                if (d->as_string() != digest)
                    throw InputError(path, "digest",
                                     "the inputs or options differ from those of the journal's run (digest " +
                                         d->as_string().substr(0, 12) + " != " + digest.substr(0, 12) +
                                         "); rerun with the same inputs and options, or remove the journal");
            } else {
                try {
                    json::Value v = json::parse(line, path);
                    const json::Value* k = v.find("key");
                    const json::Value* r = v.find("result");
                    if (k && r && k->is_string()) j->done_[k->as_string()] = *r;
                } catch (const Error&) {
                    // A unit whose line cannot be read back (a non-finite number) is computed again.
                }
            }
            offset += line.size() + 1;
            keep_bytes = offset;
        }
        j->resumed_ = j->done_.size();
    }
    in.close();
    if (exists && keep_bytes == 0) throw InputError(path, "", "not an hfcore journal (empty or torn header)");
    const int flags = O_WRONLY | O_CLOEXEC | (exists ? 0 : (O_CREAT | O_EXCL));
    j->fd_ = ::open(path.c_str(), flags, 0644);
    if (j->fd_ < 0) throw InputError(path, "", std::string("cannot write the journal: ") + std::strerror(errno));
    if (exists) {
        // Drop a torn last line, then append after the intact ones.
        if (::ftruncate(j->fd_, static_cast<off_t>(keep_bytes)) != 0 ||
            ::lseek(j->fd_, 0, SEEK_END) < 0)
            throw InputError(path, "", std::string("cannot write the journal: ") + std::strerror(errno));
    } else {
        append_line(j->fd_, path, json::dump(header(command, digest)));
    }
    return j;
}

Journal::~Journal() {
    if (fd_ >= 0) ::close(fd_);
}

const json::Value* Journal::find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = done_.find(key);
    return it == done_.end() ? nullptr : &it->second;
}

void Journal::record(const std::string& key, const json::Value& result) {
    json::Object line;
    line.set("key", json::Value(key));
    line.set("result", result);
    const std::string text = json::dump(json::Value(std::move(line)));
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0) return;
    append_line(fd_, path_, text);
    done_[key] = result;
}

std::size_t Journal::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_.size();
}

void Journal::remove() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
}

}  // namespace hf::run
