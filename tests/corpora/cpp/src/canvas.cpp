#include "canvas.hpp"

#include "util.hpp"

namespace render {

Canvas::Canvas(int width, int height)
{
    resize(width, height);
}

void check_failed(const char *what)
{
    log_line(std::string("check failed: ") + what);
}

void Canvas::resize(int width, int height)
{
    RENDER_CHECK(width >= 0 && height >= 0);
    width_ = width;
    height_ = height;
    cells_.assign(static_cast<size_t>(width * height), Cell{});
}

void Canvas::clear()
{
    for (auto &cell : cells_)
        cell.set(' ');
}

void Canvas::draw(const geo::Shape &shape)
{
    this->clear();
    int filled = clamp(static_cast<int>(shape.area()), 0, width_ * height_);
    for (int i = 0; i < filled; i++)
        cells_[i].set('#');
    log_line("drew " + shape.describe());
}

std::string Canvas::str() const
{
    std::string s;
    for (int y = 0; y < height_; y++) {
        for (int x = 0; x < width_; x++)
            s += cells_[y * width_ + x].glyph;
        s += '\n';
    }
    return s;
}

Canvas make_canvas(int width, int height)
{
    return Canvas(width, height);
}

}  // namespace render
