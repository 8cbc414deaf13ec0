#pragma once

#include <memory>
#include <vector>

#include "canvas.hpp"
#include "geo/shape.hpp"

namespace render {

// One shape of a scene, and the nodes drawn over it.
class Node {
public:
    explicit Node(const geo::Shape *shape) : shape_(shape) {}
    bool visible() const { return shape_ != nullptr; }
    const geo::Shape *shape() const { return shape_; }
    void push_back(Node *child) { children_.push_back(child); }

private:
    const geo::Shape *shape_;
    std::vector<Node *> children_;
};

class Scene {
public:
    explicit Scene(Node *root) : root_(root) {}
    // The scene shows something when its root does.
    bool visible() const { return root_->visible(); }
    bool root_visible() const { return this->root_->visible(); }
    bool any_visible(const std::vector<Node *> &nodes) const
    {
        for (Node *child : nodes)
            if (child->visible())
                return true;
        return false;
    }
    void render(Canvas &canvas) const;

private:
    Node *root_;
};

}  // namespace render
