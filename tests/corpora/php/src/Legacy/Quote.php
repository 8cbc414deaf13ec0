<?php
namespace Legacy;

use Shop\Pricing;

class Quote
{
    public function price(array $cents)
    {
        $calc = new Pricing\Calculator();
        return $calc->sum($cents);
    }
}
