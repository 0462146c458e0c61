// pyhf.utils.digest: a hashlib digest of json.dumps(obj, sort_keys=True, ensure_ascii=False) in UTF-8.
// (pyhf uses Python's default separators ", " and ": ", not the compact ones.)
#include <openssl/evp.h>

#include <memory>
#include <utility>

#include "hfcore/errors.hpp"
#include "hfcore/workspace.hpp"

namespace hf {

namespace {

// Python hashlib names -> OpenSSL names (hashlib's blake2b/blake2s default to 64/32-byte digests).
const std::pair<const char*, const char*> kAlgorithms[] = {
    {"md5", "MD5"},           {"sha1", "SHA1"},         {"sha224", "SHA224"},     {"sha256", "SHA256"},
    {"sha384", "SHA384"},     {"sha512", "SHA512"},     {"sha3_224", "SHA3-224"}, {"sha3_256", "SHA3-256"},
    {"sha3_384", "SHA3-384"}, {"sha3_512", "SHA3-512"}, {"blake2b", "BLAKE2B512"}, {"blake2s", "BLAKE2S256"},
};

}  // namespace

std::string hash_hex(const std::string& algorithm, std::string_view bytes) {
    const char* openssl_name = nullptr;
    std::string known;
    for (const auto& [py, ossl] : kAlgorithms) {
        if (algorithm == py) openssl_name = ossl;
        known += (known.empty() ? "" : ", ") + std::string(py);
    }
    if (!openssl_name) throw Error("unknown hash algorithm '" + algorithm + "' (known: " + known + ")");
    const EVP_MD* md = EVP_get_digestbyname(openssl_name);
    if (!md) throw Error("hash algorithm '" + algorithm + "' is not available in this OpenSSL");
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
        EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
        EVP_DigestFinal_ex(ctx.get(), out, &len) != 1)
        throw Error("OpenSSL failed to compute a " + algorithm + " digest");
    static const char* hex = "0123456789abcdef";
    std::string s;
    s.reserve(2 * len);
    for (unsigned i = 0; i < len; ++i) {
        s += hex[out[i] >> 4];
        s += hex[out[i] & 0xF];
    }
    return s;
}

std::string digest(const json::Value& value, const std::string& algorithm) {
    return hash_hex(algorithm, json::dump_canonical(value));
}

}  // namespace hf
