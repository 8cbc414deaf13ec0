#pragma once

#include <string>
#include <vector>

#include "geo/shape.hpp"

namespace render {

class Canvas {
public:
    struct Cell {
        char glyph = ' ';
        void set(char c) { glyph = c; }
    };

    Canvas(int width, int height);
    void draw(const geo::Shape &shape);
    void clear();
    std::string str() const;

private:
    void resize(int width, int height);
    int width_ = 0, height_ = 0;
    std::vector<Cell> cells_;
};

Canvas make_canvas(int width, int height);

}  // namespace render
