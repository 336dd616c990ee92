/**
 * A restart asked for from inside the service (a restore staged from the page): `heliograph
 * serve` closes the running composition and opens a new one in the same process, on the same
 * port, so it works alike under systemd, `npm start` or a container.
 */
export class RestartRequest {
  private ask!: (reason: string) => void;
  /** Resolves with the reason once a restart is asked for. */
  readonly requested: Promise<string> = new Promise((resolve) => (this.ask = resolve));
  private asked = false;

  request(reason: string): void {
    this.asked = true;
    this.ask(reason);
  }

  /** A restart is on its way: nothing new may be staged meanwhile. */
  pending(): boolean {
    return this.asked;
  }
}
