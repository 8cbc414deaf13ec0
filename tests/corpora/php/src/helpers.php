<?php

function format_price($cents)
{
    return sprintf('%d.%02d', intdiv($cents, 100), $cents % 100);
}
