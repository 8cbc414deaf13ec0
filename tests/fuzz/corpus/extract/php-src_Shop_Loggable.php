<?php
namespace Shop;

trait Loggable
{
    public function log($message)
    {
        error_log($message);
    }
}
