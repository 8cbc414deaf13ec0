#include <textkit.h>

static char title[64];

int title_width(const char *name)
{
	return text_length(name) + 2;
}

void set_title(const char *name)
{
	if (title_width(name) < (int)sizeof(title))
		text_copy(title, name);
}

unsigned title_key(void)
{
	return text_hash(title);
}

int main(void)
{
	set_title("report");
	return (int)(title_key() & 1);
}
