#include "cart.h"

#include <cstring>

namespace shop {

static int Length(const std::string& s) { return static_cast<int>(strlen(s.c_str())); }

int Item::Price() const { return Length(name_); }

void Cart::Add(const Item& it) { items_.push_back(it); }

int Cart::Total(const Pricer& p) const {
  Cart other;
  other.Add(Item("x"));
  return p.Price() + static_cast<int>(other
      .Size()) + Length("y");
}

}  // namespace shop
