import { measure } from "@acme/exp";
import { wrap } from "@acme/exp/wrap";
import { shout } from "@acme/exp/feature/upper";

export function banner(s) {
  return shout(wrap(s, measure(s)));
}
