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
      out += marked[i];
      continue;
    }
    const std::string name = marked.substr(i + 1, end - i - 1);
    out += spell ? spell(name) : name;
    i = end;
  }
  return out;
}

}  // namespace

std::string api_name(std::string_view torch_name) {
  std::string marked(1, kNameBegin);
  marked.append(torch_name);
  return marked += kNameEnd;
}

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(respell(message, nullptr)), kind_(kind), marked_(message) {}

std::string Error::message(const std::function<std::string(const std::string&)>& spell) const {
  return respell(marked_, spell);
}

}  // namespace aw
