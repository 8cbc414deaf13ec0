// A header named .h whose text is C++ (a namespace, a class with a body,
// access labels): kbx reads it as C++, not as C.  The class is exported
// through a macro, as libraries do.
#pragma once

#define BOOK_EXPORT __attribute__((visibility("default")))
#define LOCKS_EXCLUDED(...)

namespace book {

class BOOK_EXPORT Ledger {
public:
    void add(double v);
    double total() const;
    void reset() LOCKS_EXCLUDED(mu_) { sum_ = 0; }

private:
    double sum_ = 0;
};

}  // namespace book
