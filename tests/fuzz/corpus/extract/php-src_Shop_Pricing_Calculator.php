<?php
namespace Shop\Pricing;

function round_cents($value)
{
    return (int) round($value);
}

class Calculator
{
    public function sum(array $cents)
    {
        return round_cents(array_sum($cents));
    }
}
