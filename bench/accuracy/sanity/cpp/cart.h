#ifndef CART_H
#define CART_H
#include <string>
#include <vector>

namespace shop {

class Pricer {
 public:
  virtual ~Pricer() {}
  virtual int Price() const = 0;
};

class Item : public Pricer {
 public:
  explicit Item(const std::string& name) : name_(name) {}
  int Price() const override;

 private:
  std::string name_;
};

class Cart {
 public:
  void Add(const Item& it);
  int Total(const Pricer& p) const;
  size_t Size() const { return items_.size(); }

 private:
  std::vector<Item> items_;
};

}  // namespace shop
#endif
