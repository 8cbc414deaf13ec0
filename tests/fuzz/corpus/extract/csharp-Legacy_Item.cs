	// Items as the first catalogue stored them; kept for old invoices.
namespace Shop.Legacy;

public class Item
{
    private readonly string code;

    public Item(string code) => this.code = code;

    public string Label() => code.Trim();

    public string Describe() => "legacy item " + Label();
}
