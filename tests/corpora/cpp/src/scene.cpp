#include "scene.hpp"

#include <memory>
#include <string>

namespace render {

namespace {

Node *g_last = nullptr;

// A frame around a scene.  It derives from a class of another file, whose
// members kbx cannot see: one of them could be called g_last.
class Frame : public geo::Rect {
public:
    Frame(double w, double h) : Rect(w, h) {}
    bool shown() const { return g_last->visible(); }
};

template <class T>
bool shown(const T &item)
{
    return item.visible();
}

// Draws shapes with a pen, remembering the last node drawn.
class Painter {
public:
    explicit Painter(Canvas::Cell *pen) : pen_(pen) {}
    void paint(const geo::Shape &shape);

private:
    Canvas::Cell *pen_;
    std::unique_ptr<Node> last_;
};

void Painter::paint(const geo::Shape &shape)
{
    pen_->set(shape.name()[0]);
    if (!last_ || !last_->visible())
        last_.reset(new Node(&shape));
}

}  // namespace

void Scene::render(Canvas &canvas) const
{
    if (!visible())
        return;
    canvas.draw(*root_->shape());
    g_last = root_;
}

bool last_visible()
{
    return g_last != nullptr && g_last->visible();
}

bool would_show(const geo::Shape *shape)
{
    Node node(shape);
    return node.visible();
}

typedef Node *NodeRef;

std::string names(const std::vector<NodeRef> &nodes)
{
    std::string out;
    for (NodeRef node : nodes)
        if (node->visible())
            out += node->shape()->name();
    auto *circle = new geo::Circle(1.0);
    out += circle->name();
    geo::Square square(2.0);
    out += square.name();
    delete circle;
    return out;
}

}  // namespace render
