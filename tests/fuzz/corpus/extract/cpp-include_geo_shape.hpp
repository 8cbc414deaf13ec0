#pragma once

#include <string>

namespace geo {

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    virtual std::string name() const = 0;
    std::string describe() const;
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override;
    std::string name() const override { return "circle"; }

private:
    double r_;
};

class Rect : public Shape {
public:
    Rect(double w, double h) : w_(w), h_(h) {}
    double area() const override;
    std::string name() const override { return "rect"; }

protected:
    double w_, h_;
};

class Square : public Rect {
public:
    explicit Square(double side) : Rect(side, side) {}
    std::string name() const override { return "square"; }
};

}  // namespace geo
