/** Text helpers. */
@Deprecated
package com.acme.text;
