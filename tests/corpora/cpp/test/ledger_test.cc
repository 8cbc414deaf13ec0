// googletest cases for the ledger (needs googletest to compile, so it is
// not in the README's compile command).  TEST_F's body is the TestBody of
// a class derived from the fixture: its plain calls are the fixture's.
#include <gtest/gtest.h>

#include "../src/ledger.h"

namespace book {

class LedgerTest : public testing::Test {
protected:
    void Fill(Ledger *l) { l->add(2); }
    Ledger ledger_;
};

TEST_F(LedgerTest, AddsUp)
{
    Fill(&ledger_);
    ASSERT_EQ(2, ledger_.total());
}

TEST(LedgerPlain, StartsEmpty)
{
    Ledger l;
    ASSERT_EQ(0, l.total());
}

}  // namespace book
