#include <string>
#include <vector>
#include "tokenizer.hpp"

namespace text {

constexpr int kMaxTokenLength = 256;

// Splits text into words on whitespace and punctuation.
class Tokenizer {
public:
    explicit Tokenizer(bool lowercase) : lowercase_(lowercase) {}

    // Returns the tokens of s in order.
    std::vector<std::string> split(const std::string& s) const;

    size_t count(const std::string& s) const { return split(s).size(); }

private:
    bool lowercase_;
};

struct Span {
    size_t begin;
    size_t end;
};

/// Splits s; words longer than kMaxTokenLength are cut.
std::vector<std::string> Tokenizer::split(const std::string& s) const {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            flush(out, cur);
            continue;
        }
        // TODO: handle multi-byte characters
        cur.push_back(lowercase_ ? std::tolower(c) : c);
    }
    flush(out, cur);
    return out;
}

static void flush(std::vector<std::string>& out, std::string& cur) {
    if (cur.size() > kMaxTokenLength) {
        throw std::length_error("token is longer than the maximum length");
    }
    if (!cur.empty()) {
        out.push_back(cur);
        cur.clear();
    }
}

}  // namespace text
