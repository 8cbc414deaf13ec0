<?php
function check($a) {
    if (isset($a[0]) && !empty($a[1])) {
        unset($a[0]);
    }
    return $a;
}
