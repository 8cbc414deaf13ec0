#include <iostream>
#include <memory>
#include <string>

#include "canvas.hpp"
#include "ledger.h"
#include "geo/shape.hpp"
#include "util.hpp"

static render::Canvas canvas = render::make_canvas(40, 10);

int main(int argc, char **argv)
{
    double factor = argc > 1 ? std::stod(argv[1]) : 1.0;
    geo::Circle circle(scale(2.0, factor));
    std::unique_ptr<geo::Shape> rect(new geo::Rect(scale(3.0, factor), 4.0));
    geo::Square square(2.0);
    book::Ledger ledger;
    ledger.reset();
    ledger.add(factor);
    const geo::Shape *shapes[] = { &circle, rect.get(), &square };
    for (const geo::Shape *s : shapes) {
        canvas.draw(*s);
        std::cout << canvas.str();
    }
    return ledger.total() > 0 ? 0 : 1;
}
