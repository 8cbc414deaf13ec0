public class JavaListIndex {
	public static void main(String[] args) {
		String[] parts = "a,b".split(",");
		System.out.println(parts[2]);
	}
}
