#include "core/error.hpp"

namespace aw {
namespace {

constexpr char kNameBegin = '\x02', kNameEnd = '\x03';  // around a name in a marked message

std::string respell(const std::string& marked, const std::function<std::string(const std::string&)>& spell) {
  std::string out;
  out.reserve(marked.size());
  for (std::size_t i = 0; i < marked.size(); ++i) {
    const std::size_t end = marked[i] == kNameBegin ? marked.find(kNameEnd, i) : std::string::npos;
    if (end == std::string::npos) {
      // no name can end after a begin with no end: the rest as it is (a text of n begins from a
      // file, such as a tensor name, would otherwise be searched n times to its end)
      if (marked[i] == kNameBegin) return out.append(marked, i, std::string::npos);
      out += marked[i];
      continue;
    }
    const std::string name = marked.substr(i + 1, end - i - 1);
    out += spell ? spell(name) : name;
    i = end;
  }
  return out;
}

// A message quotes what it was given (a tensor's name, a shape, a key); from a hostile file that
// can be megabytes (a 99 MB tensor name, a shape of 200,000 dims). Past kMaxMessage characters
// the middle is cut, at UTF-8 character boundaries, and the count said.
constexpr std::size_t kMaxMessage = 4096, kHead = 3000, kTail = 500;

std::size_t char_boundary(const std::string& s, std::size_t i) {
  while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

std::string capped(std::string s) {
  if (s.size() <= kMaxMessage) return s;
  const std::size_t head = char_boundary(s, kHead), tail = char_boundary(s, s.size() - kTail);
  return s.substr(0, head) + " ... [" + std::to_string(tail - head) + " characters cut] ... " + s.substr(tail);
}

}  // namespace

std::string api_name(std::string_view torch_name) {
  std::string marked(1, kNameBegin);
  marked.append(torch_name);
  return marked += kNameEnd;
}

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(capped(respell(message, nullptr))), kind_(kind), marked_(message) {}

std::string Error::message(const std::function<std::string(const std::string&)>& spell) const {
  return capped(respell(marked_, spell));
}

}  // namespace aw
