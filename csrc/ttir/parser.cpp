// The TTIR parser: reads back what the printer writes (Triton's textual TTIR: custom
// assembly for the ops in ops.cpp, MLIR's generic form for the others), so golden tests and
// tools can start from text. Locations: `loc("file:line:col")` when present, otherwise the
// op's line and column in the text.
//
// Known limits: one module per text; no forward references (TTIR is structured and in SSA
// order); attributes in the forms the printer emits.
#include "ttir/parser.h"
#include "ttir/enums.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"

namespace tt {
namespace {

class Parser {
public:
  Parser(const std::string &text, std::string file) : s_(text), file_(std::move(file)) {}

  std::unique_ptr<Module> module() {
    auto m = std::make_unique<Module>();
    Builder b(*m);
    b_ = &b;
    ws();
    if (peekWord("module")) {
      word();
      expect('{');
    }
    while (!eof()) {
      ws();
      if (peek('}')) {
        ++pos_;
        ws();
        continue;
      }
      if (eof())
        break;
      if (!peekWord("tt.func"))
        fail("expected tt.func");
      func();
    }
    verifyModule(*m);
    return m;
  }

private:
  // ------------------------------------------------------------ characters

  bool eof() {
    ws();
    return pos_ >= s_.size();
  }
  void ws() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n')
          ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else {
        break;
      }
    }
  }
  bool peek(char c) {
    ws();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool peekStr(const char *t) {
    ws();
    return s_.compare(pos_, std::char_traits<char>::length(t), t) == 0;
  }
  bool accept(char c) {
    if (peek(c)) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool acceptStr(const char *t) {
    if (peekStr(t)) {
      pos_ += std::char_traits<char>::length(t);
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c))
      fail(std::string("expected '") + c + "'");
  }
  void expectStr(const char *t) {
    if (!acceptStr(t))
      fail(std::string("expected '") + t + "'");
  }
  static bool wordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
  }
  std::string word() {
    ws();
    size_t start = pos_;
    while (pos_ < s_.size() && wordChar(s_[pos_]))
      ++pos_;
    if (start == pos_)
      fail("expected a word");
    return s_.substr(start, pos_ - start);
  }
  bool peekWord(const char *w) {
    ws();
    size_t n = std::char_traits<char>::length(w);
    return s_.compare(pos_, n, w) == 0 && (pos_ + n >= s_.size() || !wordChar(s_[pos_ + n]));
  }
  bool acceptWord(const char *w) {
    if (peekWord(w)) {
      pos_ += std::char_traits<char>::length(w);
      return true;
    }
    return false;
  }
  std::string valueName() {
    ws();
    if (!peek('%'))
      fail("expected a value");
    size_t start = pos_++;
    while (pos_ < s_.size() && (wordChar(s_[pos_]) || s_[pos_] == '-' || s_[pos_] == '#'))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::string quoted() {
    ws();
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        char d = s_[pos_++];
        if (d == '0' && pos_ < s_.size() && s_[pos_] == 'A') {
          ++pos_;
          out += '\n';
        } else {
          out += d;
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
  }
  [[noreturn]] void fail(const std::string &msg) {
    int line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i, ++col)
      if (s_[i] == '\n') {
        ++line;
        col = 0;
      }
    throw IRError("parse error: " + msg, here(line, col));
  }
  Location here(int line, int col) {
    auto d = std::make_shared<LocData>();
    d->file = file_;
    d->line = line;
    d->col = col;
    return d;
  }
  Location currentLoc() {
    ws();
    int line = 1, col = 1;
    for (size_t i = 0; i < pos_; ++i, ++col)
      if (s_[i] == '\n') {
        ++line;
        col = 0;
      }
    return here(line, col);
  }

  // ------------------------------------------------------------ types

  Type type() {
    ws();
    if (acceptStr("!tt.ptr<")) {
      Type p = type();
      int as = 1;
      if (accept(','))
        as = static_cast<int>(integer());
      expect('>');
      return Type::pointer(p, as);
    }
    if (acceptStr("!cuda_tile.token"))
      return Type::token();
    if (acceptStr("!tt.tensordesc<")) {
      Type block = type();
      expect('>');
      return Type::tensorDesc(block);
    }
    if (acceptStr("tensor<")) {
      std::vector<int64_t> shape;
      while (std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        shape.push_back(integer());
        expect('x');
      }
      Type e = type();
      expect('>');
      return Type::tensor(shape, e);
    }
    std::string w;
    size_t start = pos_;
    while (pos_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
    w = s_.substr(start, pos_ - start);
    if (w.size() > 1 && w[0] == 'i' && std::isdigit(static_cast<unsigned char>(w[1])))
      return Type::integer(std::atoi(w.c_str() + 1));
    try {
      return Type::floatByName(w);
    } catch (const std::exception &) {
      pos_ = start;
      fail("unknown type '" + w + "'");
    }
  }
  std::vector<Type> typeList() {
    std::vector<Type> ts;
    do
      ts.push_back(type());
    while (accept(','));
    return ts;
  }
  // `T` or `(T, U)`
  std::vector<Type> resultTypeList() {
    if (accept('(')) {
      std::vector<Type> ts;
      if (!accept(')')) {
        ts = typeList();
        expect(')');
      }
      return ts;
    }
    return {type()};
  }

  int64_t integer() {
    ws();
    size_t start = pos_;
    if (s_[pos_] == '-')
      ++pos_;
    if (s_.compare(pos_, 2, "0x") == 0) {
      pos_ += 2;
      while (std::isxdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
      return static_cast<int64_t>(std::strtoull(s_.c_str() + start, nullptr, 16));
    }
    while (std::isdigit(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
    if (start == pos_)
      fail("expected an integer");
    return std::strtoll(s_.c_str() + start, nullptr, 10);
  }

  // A literal: integer, float, hex bit pattern, true/false. Returns true when it is a float.
  bool literal(int64_t &i, double &f, Type t) {
    ws();
    if (acceptWord("true")) {
      i = 1;
      return false;
    }
    if (acceptWord("false")) {
      i = 0;
      return false;
    }
    size_t start = pos_;
    if (s_[pos_] == '-' || s_[pos_] == '+')
      ++pos_;
    if (s_.compare(pos_, 2, "0x") == 0) {
      pos_ += 2;
      while (std::isxdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
      uint64_t bits = std::strtoull(s_.c_str() + start, nullptr, 16);
      Type e = t.element();
      if (e.isFloat()) {
        f = bitsToDouble(bits, e);
        return true;
      }
      i = static_cast<int64_t>(bits);
      return false;
    }
    bool isFloat = false;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' ||
                                ((s_[pos_] == '-' || s_[pos_] == '+') &&
                                 (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
      isFloat |= s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E';
      ++pos_;
    }
    if (start == pos_)
      fail("expected a literal");
    std::string text = s_.substr(start, pos_ - start);
    if (isFloat || t.element().isFloat()) {
      f = std::strtod(text.c_str(), nullptr);
      return true;
    }
    i = std::strtoll(text.c_str(), nullptr, 10);
    return false;
  }

  static double bitsToDouble(uint64_t bits, Type e) {
    if (e.floatWidth() == 64) {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    if (e.floatWidth() == 32) {
      uint32_t b = static_cast<uint32_t>(bits);
      float fl;
      std::memcpy(&fl, &b, 4);
      return fl;
    }
    // 16-bit: only the special values the printer emits (inf, nan) are spelled in hex.
    bool neg = bits & 0x8000;
    bool nan = e.floatKind() == FloatKind::BF16 ? (bits & 0x7F) != 0 : (bits & 0x3FF) != 0;
    double v = nan ? std::nan("") : INFINITY;
    return neg ? -v : v;
  }

  // ------------------------------------------------------------ attributes

  Attribute attrValue() {
    ws();
    if (peek('"'))
      return Attribute::string(quoted());
    if (acceptStr("array<i32")) {
      std::vector<int64_t> v;
      if (accept(':'))
        do
          v.push_back(integer());
        while (accept(','));
      expect('>');
      return Attribute::i32Array(v);
    }
    if (acceptStr("dense<")) {
      size_t litStart = pos_;
      while (pos_ < s_.size() && s_[pos_] != '>')
        ++pos_;
      size_t litEnd = pos_;
      expect('>');
      expect(':');
      Type t = type();
      size_t after = pos_;
      pos_ = litStart;
      int64_t i = 0;
      double f = 0;
      bool isF = literal(i, f, t);
      if (pos_ != litEnd)
        fail("expected a splat literal in dense<...>");
      pos_ = after;
      return Attribute::denseSplat(isF ? f : 0, isF ? 0 : i, t);
    }
    if (peek('[')) {
      ++pos_;
      std::vector<Attribute> v;
      if (!accept(']')) {
        do
          v.push_back(attrValue());
        while (accept(','));
        expect(']');
      }
      return Attribute::array(v);
    }
    if (acceptWord("unit"))
      return Attribute::unit();
    if (peekWord("true") || peekWord("false")) {
      bool v = acceptWord("true");
      if (!v)
        acceptWord("false");
      return Attribute::boolean(v);
    }
    // The literal's meaning (hex bits of a float, say) depends on the type after it.
    size_t litStart = pos_;
    int64_t i = 0;
    double f = 0;
    literal(i, f, Type::integer(64));
    if (!accept(':'))
      return Attribute::integer(i, Type::integer(64));
    Type t = type();
    size_t after = pos_;
    pos_ = litStart;
    bool isF = literal(i, f, t);
    pos_ = after;
    return t.isFloat() ? Attribute::floating(isF ? f : static_cast<double>(i), t)
                       : Attribute::integer(i, t);
  }

  Attrs attrDict() {
    Attrs a;
    expect('{');
    if (accept('}'))
      return a;
    do {
      std::string name = word();
      if (accept('='))
        a.emplace_back(name, attrValue());
      else
        a.emplace_back(name, Attribute::unit());
    } while (accept(','));
    expect('}');
    return a;
  }
  Attrs optAttrDict() { return peek('{') ? attrDict() : Attrs{}; }

  // ------------------------------------------------------------ values

  Value *use() {
    std::string n = valueName();
    auto it = values_.find(n);
    if (it == values_.end())
      fail("use of undefined value " + n);
    return it->second;
  }
  std::vector<Value *> useList() {
    std::vector<Value *> v;
    do
      v.push_back(use());
    while (accept(','));
    return v;
  }
  void define(const std::string &name, Operation *op) {
    if (op->numResults() == 1) {
      values_[name] = op->result(0);
      return;
    }
    for (size_t i = 0; i < op->numResults(); ++i)
      values_[name + "#" + std::to_string(i)] = op->result(i);
  }

  // ------------------------------------------------------------ ops

  Operation *create(const std::string &name, const std::vector<Value *> &ops,
                    const std::vector<Type> &types, Attrs attrs = {}, int regions = 0) {
    return b_->create(name, ops, types, std::move(attrs), regions);
  }

  void func() {
    Location loc = currentLoc();
    word(); // tt.func
    std::string vis = "public";
    if (acceptWord("private"))
      vis = "private";
    else
      acceptWord("public");
    expect('@');
    std::string name = word();
    expect('(');
    std::vector<std::string> argNames;
    std::vector<Type> argTypes;
    std::vector<Attrs> argAttrs;
    if (!accept(')')) {
      do {
        argNames.push_back(valueName());
        expect(':');
        argTypes.push_back(type());
        argAttrs.push_back(optAttrDict());
      } while (accept(','));
      expect(')');
    }
    std::vector<Type> results;
    if (acceptStr("->"))
      results = resultTypeList();
    Attrs extra;
    if (acceptWord("attributes"))
      extra = attrDict();
    Attrs attrs = {{"sym_name", Attribute::string(name)},
                   {"function_type", Attribute::type(Type::function(argTypes, results))},
                   {"sym_visibility", Attribute::string(vis)}};
    attrs.insert(attrs.end(), extra.begin(), extra.end());
    b_->setLoc(loc);
    Operation *f = create("tt.func", {}, {}, attrs, 1);
    f->argAttrs = argAttrs;
    Block *body = f->region(0)->addBlock();
    values_.clear();
    for (size_t i = 0; i < argTypes.size(); ++i)
      values_[argNames[i]] = body->addArg(argTypes[i]);
    auto ip = b_->saveInsertionPoint();
    b_->setInsertionPointToEnd(body);
    blockBody();
    b_->restoreInsertionPoint(ip);
    optLoc(f);
  }

  // `{ ops }`, with an optional `^bb0(...)` label handled by the caller.
  void blockBody() {
    expect('{');
    while (!accept('}'))
      op();
  }

  void region(Region *r, const std::vector<std::pair<std::string, Type>> &args) {
    Block *blk = r->addBlock();
    for (const auto &a : args)
      values_[a.first] = blk->addArg(a.second);
    auto ip = b_->saveInsertionPoint();
    b_->setInsertionPointToEnd(blk);
    expect('{');
    if (peek('^')) {
      // ^bb0(%a: T, ...):
      while (pos_ < s_.size() && s_[pos_] != '(')
        ++pos_;
      expect('(');
      if (!accept(')')) {
        do {
          std::string n = valueName();
          expect(':');
          values_[n] = blk->addArg(type());
        } while (accept(','));
        expect(')');
      }
      expect(':');
    }
    while (!accept('}'))
      op();
    b_->restoreInsertionPoint(ip);
  }

  void op() {
    Location loc = currentLoc();
    std::vector<std::string> resNames;
    if (peek('%')) {
      do {
        std::string n = valueName();
        size_t colon = s_[pos_] == ':' ? pos_ : std::string::npos;
        if (colon != std::string::npos && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1]))) {
          ++pos_;
          integer(); // %r:N: the count is implied by the op
        }
        resNames.push_back(n);
      } while (accept(','));
      expect('=');
    }
    b_->setLoc(loc);
    Operation *o;
    if (peek('"'))
      o = generic();
    else
      o = custom(word());
    optLoc(o);
    if (!resNames.empty())
      define(resNames[0], o);
  }

  // "file:line:col" followed by any number of " (inlined at file:line:col)".
  Location parseLoc(const std::string &l) {
    static const std::string marker = " (inlined at ";
    size_t cut = l.find(marker);
    std::string head = l.substr(0, cut);
    auto d = std::make_shared<LocData>();
    size_t c2 = head.rfind(':'), c1 = c2 == std::string::npos ? c2 : head.rfind(':', c2 - 1);
    if (c1 == std::string::npos || c2 == std::string::npos)
      fail("malformed location \"" + l + "\"");
    d->file = head.substr(0, c1);
    d->line = std::atoi(head.c_str() + c1 + 1);
    d->col = std::atoi(head.c_str() + c2 + 1);
    if (cut != std::string::npos) {
      // The rest is the call chain, innermost call site first: "a) (inlined at b)".
      std::string rest = l.substr(cut + marker.size());
      if (!rest.empty() && rest.back() == ')')
        rest.pop_back();
      size_t close = rest.find(')');
      std::string next = rest.substr(0, close);
      if (close != std::string::npos && close + 1 < rest.size())
        next += rest.substr(close + 1) + ")";
      d->caller = parseLoc(next);
    }
    return d;
  }

  void optLoc(Operation *o) {
    if (acceptStr("loc(")) {
      std::string l = quoted();
      expect(')');
      o->setLoc(parseLoc(l));
    }
  }

  Operation *generic() {
    std::string name = quoted();
    expect('(');
    std::vector<Value *> ops;
    if (!accept(')')) {
      ops = useList();
      expect(')');
    }
    Attrs attrs;
    if (acceptStr("<{")) {
      --pos_;
      attrs = attrDict();
      expect('>');
    }
    std::vector<std::string> regionTexts;
    size_t regionStart = 0;
    int numRegions = 0;
    if (accept('(')) {
      regionStart = pos_;
      // Count the regions first: they are parsed after the op exists.
      int depth = 0;
      size_t i = pos_;
      for (; i < s_.size(); ++i) {
        if (s_[i] == '{') {
          if (depth == 0)
            ++numRegions;
          ++depth;
        } else if (s_[i] == '}') {
          --depth;
        } else if (s_[i] == ')' && depth == 0) {
          break;
        }
      }
      // Skip to the type signature to know the result types.
      pos_ = i + 1;
    }
    expect(':');
    expect('(');
    if (!accept(')')) {
      typeList();
      expect(')');
    }
    expectStr("->");
    std::vector<Type> results = resultTypeList();
    size_t end = pos_;
    Operation *o = create(name, ops, results, attrs, numRegions);
    if (numRegions) {
      pos_ = regionStart;
      for (int r = 0; r < numRegions; ++r) {
        accept(',');
        region(o->region(r), {});
      }
      pos_ = end;
    }
    return o;
  }

  Operation *custom(const std::string &name) {
    using namespace ttir_enum;
    Type i32 = Type::integer(32), i64 = Type::integer(64);
    if (!lookupOp(name))
      fail("unknown operation '" + name + "'");

    if (name == "arith.constant") {
      ws();
      if (peekWord("true") || peekWord("false")) {
        bool v = acceptWord("true");
        if (!v)
          acceptWord("false");
        Type i1 = Type::integer(1);
        return create(name, {}, {i1}, {{"value", Attribute::integer(v, i1)}});
      }
      Attribute v = attrValue();
      Type t = v.kind() == Attribute::Kind::Dense ? v.getType() : v.getType();
      return create(name, {}, {t}, {{"value", v}});
    }
    if (name == "arith.cmpi" || name == "arith.cmpf") {
      std::string p = word();
      int64_t pv = name == "arith.cmpi" ? value(kCmpi, p) : value(kCmpf, p);
      if (pv < 0)
        fail("unknown predicate " + p);
      expect(',');
      std::vector<Value *> ops = useList();
      expect(':');
      Type t = type();
      return create(name, ops, {t.withElement(Type::integer(1))},
                    {{"predicate", Attribute::integer(pv, i64)}});
    }
    if (name == "arith.select") {
      std::vector<Value *> ops = useList();
      expect(':');
      std::vector<Type> ts = typeList();
      return create(name, ops, {ts.back()});
    }
    if (name == "tt.get_program_id" || name == "tt.get_num_programs") {
      int64_t axis = value(kProgramAxis, word());
      expect(':');
      return create(name, {}, {type()}, {{"axis", Attribute::integer(axis, i32)}});
    }
    if (name == "tt.make_range") {
      Attrs a = attrDict();
      expect(':');
      return create(name, {}, {type()}, a);
    }
    if (name == "tt.addptr") {
      std::vector<Value *> ops = useList();
      expect(':');
      Type t = type();
      expect(',');
      type();
      return create(name, ops, {t});
    }
    if (name == "tt.load") {
      std::vector<Value *> ops = useList();
      Attrs a = optAttrDict();
      expect(':');
      Type p = type();
      return create(name, ops, {p.withElement(p.element().pointee())}, a);
    }
    if (name == "tt.store") {
      std::vector<Value *> ops = useList();
      Attrs a = optAttrDict();
      expect(':');
      type();
      return create(name, ops, {}, a);
    }
    if (name == "tt.atomic_rmw" || name == "tt.atomic_cas") {
      Attrs a;
      if (name == "tt.atomic_rmw") {
        a.emplace_back("atomic_rmw_op", Attribute::integer(value(kAtomicRmw, word()), i32));
        expect(',');
      }
      a.emplace_back("sem", Attribute::integer(value(kMemSemantic, word()), i32));
      expect(',');
      a.emplace_back("scope", Attribute::integer(value(kMemSyncScope, word()), i32));
      expect(',');
      std::vector<Value *> ops = useList();
      expect(':');
      expect('(');
      typeList();
      expect(')');
      expectStr("->");
      return create(name, ops, {type()}, a);
    }
    if (name == "tt.dot") {
      std::vector<Value *> ops;
      ops.push_back(use());
      expect(',');
      ops.push_back(use());
      expect(',');
      ops.push_back(use());
      Attrs a;
      if (accept(',')) {
        word(); // inputPrecision
        expect('=');
        a.emplace_back("inputPrecision", Attribute::integer(value(kInputPrecision, word()), i32));
      }
      for (auto &kv : optAttrDict()) // maxNumImpreciseAcc, where not 0
        a.push_back(kv);
      expect(':');
      type();
      expect('*');
      type();
      expectStr("->");
      return create(name, ops, {type()}, a);
    }
    if (name == "tt.make_tensor_descriptor" || name == "tt.make_tensor_ptr") {
      std::vector<Value *> ops = {use()};
      int lists = name == "tt.make_tensor_ptr" ? 3 : 2;
      for (int l = 0; l < lists; ++l) {
        expect(',');
        expect('[');
        if (!accept(']')) {
          std::vector<Value *> vs = useList();
          ops.insert(ops.end(), vs.begin(), vs.end());
          expect(']');
        }
      }
      Attrs a = optAttrDict();
      expect(':');
      expect('<');
      Type t = type();
      expect('>');
      if (name == "tt.make_tensor_ptr")
        return create(name, ops, {Type::pointer(t)}, a);
      expect(',');
      expect('<');
      Type block = type();
      expect('>');
      return create(name, ops, {Type::tensorDesc(block)}, a);
    }
    if (name == "tt.descriptor_load" || name == "tt.descriptor_store") {
      std::vector<Value *> ops = {use()};
      expect('[');
      std::vector<Value *> offs = useList();
      expect(']');
      bool store = name == "tt.descriptor_store";
      if (store) {
        expect(',');
        ops.push_back(use());
      }
      ops.insert(ops.end(), offs.begin(), offs.end());
      Attrs a = optAttrDict();
      expect(':');
      type();
      if (store) {
        expect(',');
        type();
        return create(name, ops, {}, a);
      }
      expectStr("->");
      return create(name, ops, {type()}, a);
    }
    if (name == "tt.advance") {
      std::vector<Value *> ops = {use()};
      expect(',');
      expect('[');
      std::vector<Value *> offs = useList();
      expect(']');
      ops.insert(ops.end(), offs.begin(), offs.end());
      expect(':');
      expect('<');
      Type t = type();
      expect('>');
      return create(name, ops, {Type::pointer(t)});
    }
    if (name == "tt.call") {
      expect('@');
      std::string callee = word();
      expect('(');
      std::vector<Value *> ops;
      if (!accept(')')) {
        ops = useList();
        expect(')');
      }
      expect(':');
      expect('(');
      if (!accept(')')) {
        typeList();
        expect(')');
      }
      expectStr("->");
      return create(name, ops, resultTypeList(), {{"callee", Attribute::string(callee)}});
    }
    if (name == "tt.assert") {
      std::vector<Value *> ops = {use()};
      expect(',');
      std::string msg = quoted();
      expect(':');
      type();
      return create(name, ops, {}, {{"message", Attribute::string(msg)}});
    }
    if (name == "tt.print") {
      Attrs a = {{"prefix", Attribute::string(quoted())}};
      Attrs more = optAttrDict();
      a.insert(a.end(), more.begin(), more.end());
      std::vector<Value *> ops;
      if (accept(':')) {
        ops = useList();
        expect(':');
        typeList();
      }
      return create(name, ops, {}, a);
    }
    if (name == "gpu.barrier")
      return create(name, {}, {});
    if (name == "llvm.intr.assume") {
      std::vector<Value *> ops = {use()};
      expect(':');
      type();
      return create(name, ops, {});
    }
    if (name == "scf.yield" || name == "tt.return" || name == "tt.reduce.return" ||
        name == "tt.scan.return" || name == "tt.map_elementwise.return") {
      std::vector<Value *> ops;
      if (peek('%')) {
        ops = useList();
        expect(':');
        typeList();
      }
      return create(name, ops, {});
    }
    if (name == "scf.condition") {
      expect('(');
      std::vector<Value *> ops = {use()};
      expect(')');
      if (peek('%')) {
        std::vector<Value *> rest = useList();
        ops.insert(ops.end(), rest.begin(), rest.end());
        expect(':');
        typeList();
      }
      return create(name, ops, {});
    }
    if (name == "scf.for")
      return forOp();
    if (name == "scf.if")
      return ifOp();
    if (name == "scf.while")
      return whileOp();
    if (name == "tt.split") {
      std::vector<Value *> ops = useList();
      expect(':');
      type();
      expectStr("->");
      Type r = type();
      return create(name, ops, {r, r});
    }
    // The remaining custom forms: `name %a, ... {attrs} : T` (elementwise, result T),
    // `: A to B` (casts) and `: A -> B` (shape ops).
    std::vector<Value *> ops = useList();
    Attrs a = optAttrDict();
    expect(':');
    Type first = type();
    if (acceptWord("to"))
      return create(name, ops, {type()}, a);
    if (acceptStr("->"))
      return create(name, ops, {type()}, a);
    return create(name, ops, {first}, a);
  }

  Operation *forOp() {
    std::string iv = valueName();
    expect('=');
    Value *lb = use();
    expectWord("to");
    Value *ub = use();
    expectWord("step");
    Value *step = use();
    std::vector<Value *> ops = {lb, ub, step};
    std::vector<std::pair<std::string, Type>> args;
    std::vector<std::string> iterNames;
    std::vector<Type> results;
    if (acceptWord("iter_args")) {
      expect('(');
      do {
        iterNames.push_back(valueName());
        expect('=');
        ops.push_back(use());
      } while (accept(','));
      expect(')');
      expectStr("->");
      results = resultTypeList();
    }
    expect(':');
    Type ivType = type();
    args.emplace_back(iv, ivType);
    for (size_t i = 0; i < iterNames.size(); ++i)
      args.emplace_back(iterNames[i], results.at(i));
    Operation *o = create("scf.for", ops, results, {}, 1);
    region(o->region(0), args);
    return o;
  }

  void expectWord(const char *w) {
    if (!acceptWord(w))
      fail(std::string("expected '") + w + "'");
  }

  Operation *ifOp() {
    std::vector<Value *> ops = {use()};
    std::vector<Type> results;
    if (acceptStr("->"))
      results = resultTypeList();
    Operation *o = create("scf.if", ops, results, {}, 2);
    region(o->region(0), {});
    if (acceptWord("else"))
      region(o->region(1), {});
    return o;
  }

  Operation *whileOp() {
    expect('(');
    std::vector<std::string> names;
    std::vector<Value *> ops;
    if (!accept(')')) {
      do {
        names.push_back(valueName());
        expect('=');
        ops.push_back(use());
      } while (accept(','));
      expect(')');
    }
    expect(':');
    std::vector<Type> ins = resultTypeList();
    expectStr("->");
    std::vector<Type> outs = resultTypeList();
    Operation *o = create("scf.while", ops, outs, {}, 2);
    std::vector<std::pair<std::string, Type>> args;
    for (size_t i = 0; i < names.size(); ++i)
      args.emplace_back(names[i], ins.at(i));
    region(o->region(0), args);
    expectWord("do");
    region(o->region(1), {});
    return o;
  }

  std::string s_;
  size_t pos_ = 0;
  std::string file_;
  Builder *b_ = nullptr;
  std::unordered_map<std::string, Value *> values_;
};

} // namespace

std::unique_ptr<Module> parseTTIR(const std::string &text, const std::string &file) {
  return Parser(text, file).module();
}

} // namespace tt
