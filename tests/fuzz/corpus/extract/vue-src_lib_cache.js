export class Cache {
  save() {
    return true
  }
}
