// /transitive-state/user-button: the page before the account switch.
export default function InitialPage() {
  return <p data-testid="page-name">initial</p>;
}
