// A header named .h whose text is C++ (a namespace, a class with a body,
// access labels): kbx reads it as C++, not as C.
#pragma once

namespace book {

class Ledger {
public:
    void add(double v);
    double total() const;

private:
    double sum_ = 0;
};

}  // namespace book
