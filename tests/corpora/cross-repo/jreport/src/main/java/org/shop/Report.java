package org.shop;

import com.acme.text.Buffer;
import com.acme.text.Strings;
import static com.acme.text.Strings.pad;

public class Report {
    public String line(String s) {
        return Strings.pad(s, 10);
    }

    public String padded(String s) {
        return pad(s, 2);
    }

    public String title(String s) {
        return Strings.center(s, 40);
    }

    public int lines(String s) {
        return Strings.Lines.count(s);
    }

    public Buffer built(String s) {
        Buffer b = new Buffer();
        b.append(s);
        return b;
    }

    public String page(String s) {
        return line(s) + title(s);
    }
}
