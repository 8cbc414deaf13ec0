import java.util.*;
public class JavaOom {
	public static void main(String[] args) {
		List<long[]> l = new ArrayList<>();
		while (true) l.add(new long[1 << 20]);
	}
}
