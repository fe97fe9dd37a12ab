export default function Index() {
  return <h1>Hello world</h1>;
}
