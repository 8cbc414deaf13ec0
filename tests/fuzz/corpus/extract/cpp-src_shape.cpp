#include "geo/shape.hpp"

#include <cmath>
#include <sstream>

namespace {

double square(double x)
{
    return x * x;
}

double product(double a, double b)
{
    return a * b;
}

// Round an area to two decimals for display.
double scale(double area)
{
    return std::round(area * 100.0) / 100.0;
}

}  // namespace

std::string geo::Shape::describe() const
{
    std::ostringstream out;
    out << name() << " of area " << scale(area());
    return out.str();
}

namespace geo {

double Circle::area() const
{
    return M_PI * square(r_);
}

double Rect::area() const
{
    return product(w_, h_);
}

}  // namespace geo
