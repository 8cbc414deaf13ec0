#include "ledger.h"

namespace book {

// members of a class declared in ledger.h, defined here
void Ledger::add(double v)
{
    sum_ += v;
}

double Ledger::total() const
{
    return sum_;
}

}  // namespace book
